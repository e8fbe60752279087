// External identities as the console browses them (SPEC §13). The browser's page is the one console read on
// the driver: its plan is part of the contract (a prefix page is a range of uniq_tasks_external_id on both dialects,
// checked by tests/integration/console/browse-plan.test.ts), which Prisma's generated SQL would not let us hold.
// The history reads are cold paths on Prisma Client.
import type { BrowseCursor, BrowseQuery, ConsoleTaskRow } from '../../domain/console/rows';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { num, str, strOrNull } from '../values';
import { countStatement, segmentsOf, segmentStatement, type Segment } from './browse-sql';
import { decodeSnapshot, prismaRowKey } from './snapshots';

interface BrowseRow {
  id: unknown;
  workspace_id: unknown;
  number: unknown;
  identifier: unknown;
  title: unknown;
  external_id: unknown;
  external_id_settled_at: unknown;
  creation_state: unknown;
  archived_at: unknown;
  created_at: unknown;
  updated_at: unknown;
  revision: unknown;
  step_id: unknown;
  step_name: unknown;
  step_position: unknown;
}

export interface BrowsedTask {
  task: ConsoleTaskRow;
  /** This row as a keyset position (a page's first and last rows become its cursors). */
  cursor: BrowseCursor;
}

export interface BrowsePage {
  rows: BrowsedTask[];
  /** Whether rows exist before the first / after the last row of this page. */
  before: boolean;
  after: boolean;
}

function toBrowsed(r: BrowseRow, q: BrowseQuery): BrowsedTask {
  const externalId = strOrNull(r.external_id);
  const task: ConsoleTaskRow = {
    id: str(r.id),
    workspace_id: str(r.workspace_id),
    identifier: str(r.identifier),
    title: str(r.title),
    external_id: externalId,
    external_id_settled_at: strOrNull(r.external_id_settled_at),
    creation_state: str(r.creation_state),
    archived_at: strOrNull(r.archived_at),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
    revision: num(r.revision),
    step_id: str(r.step_id),
    step_name: strOrNull(r.step_name),
  };
  const number = num(r.number);
  const key = {
    external_id: externalId,
    identifier: number,
    created_at: task.created_at,
    title: task.title,
    step: num(r.step_position),
  }[q.sort];
  const segment: Segment = q.sort !== 'external_id' ? 'all' : externalId === null ? 'none' : 'held';
  return { task, cursor: { segment, key, number } };
}

/** One operation that created (or tried to create) a task with the identity. */
export interface IdentityOperation {
  id: string;
  taskId: string;
  actorId: string;
  state: string;
  identityReleased: boolean;
  createdAt: string;
  finishedAt: string | null;
}

/** The last revision a task left behind (for a task whose row is gone: its identifier and when it was deleted). */
export interface LastRevision {
  taskId: string;
  change: string;
  identifier: string | null;
  title: string | null;
  createdAt: string;
}

export class IdentityRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  /**
   * One page of the browser: `limit` rows after `cursor` (or before it, `backwards`), across the sort's segments.
   * Each segment reads at most the rows still missing, plus one to learn whether more follow.
   */
  async browse(
    q: BrowseQuery,
    page: { cursor: BrowseCursor | null; backwards: boolean; limit: number },
  ): Promise<BrowsePage> {
    const segments = segmentsOf(q);
    const order = page.backwards ? [...segments].reverse() : segments;
    const start = page.cursor ? Math.max(0, order.indexOf(page.cursor.segment)) : 0;
    const rows: BrowsedTask[] = [];
    for (const segment of order.slice(start)) {
      const cursor = page.cursor?.segment === segment ? page.cursor : null;
      const s = segmentStatement(q, segment, cursor, page.backwards, page.limit + 1 - rows.length);
      rows.push(...(await this.sql.query<BrowseRow>(s.text, s.params)).map((r) => toBrowsed(r, q)));
      if (rows.length > page.limit) break;
    }
    const more = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    if (page.backwards) return { rows: shown.reverse(), before: more, after: page.cursor !== null };
    return { rows: shown, before: page.cursor !== null, after: more };
  }

  /** Tasks matching the filters, counted up to `cap`. */
  async countMatching(q: BrowseQuery, cap: number): Promise<number> {
    const s = countStatement(q, cap);
    return num((await this.sql.one<{ n: unknown }>(s.text, s.params))?.n ?? 0);
  }

  /** The tasks holding any of `externalIds` (the NFC/NFD look-alike hint, SPEC §13). */
  async holdersOf(
    workspaceId: string,
    externalIds: readonly string[],
  ): Promise<Array<{ id: string; identifier: string; externalId: string }>> {
    if (externalIds.length === 0) return [];
    const prisma = await this.prisma();
    const tasks = await prisma.task.findMany({
      where: { workspaceId, externalId: { in: [...externalIds] } },
      select: { id: true, identifier: true, externalId: true },
    });
    return tasks.map((t) => ({ id: t.id, identifier: t.identifier, externalId: t.externalId! }));
  }

  /** The tasks holding `externalId` in any of `workspaceIds` (one range of uniq_tasks_external_id per workspace). */
  async holdersIn(
    workspaceIds: readonly string[],
    externalId: string,
  ): Promise<Array<{ id: string; workspaceId: string; identifier: string }>> {
    if (workspaceIds.length === 0) return [];
    const prisma = await this.prisma();
    return prisma.task.findMany({
      where: { workspaceId: { in: [...workspaceIds] }, externalId },
      select: { id: true, workspaceId: true, identifier: true },
    });
  }

  /** Every creation operation made with the identity, oldest first (idx_creation_operations_external_id). */
  async operationsOf(workspaceId: string, externalId: string, limit: number): Promise<IdentityOperation[]> {
    const prisma = await this.prisma();
    const ops = await prisma.creationOperation.findMany({
      where: { workspaceId, externalId },
      select: {
        id: true,
        taskId: true,
        actorId: true,
        state: true,
        identityReleased: true,
        createdAt: true,
        finishedAt: true,
      },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
    return ops.map((o) => ({
      id: o.id,
      taskId: o.taskId,
      actorId: o.actorId,
      state: o.state,
      identityReleased: o.identityReleased,
      createdAt: o.createdAt.toISOString(),
      finishedAt: o.finishedAt?.toISOString() ?? null,
    }));
  }

  /** The tasks that still exist among `taskIds`: identifier, title, what they hold now, when they were created. */
  async tasksByIds(
    taskIds: readonly string[],
  ): Promise<Array<{ id: string; identifier: string; title: string; externalId: string | null; createdAt: string }>> {
    if (taskIds.length === 0) return [];
    const prisma = await this.prisma();
    const tasks = await prisma.task.findMany({
      where: { id: { in: [...taskIds] } },
      select: { id: true, identifier: true, title: true, externalId: true, createdAt: true },
    });
    return tasks.map((t) => ({ ...t, createdAt: t.createdAt.toISOString() }));
  }

  /** Each task's newest revision (SPEC §9 keeps them after the task is deleted). */
  async lastRevisions(taskIds: readonly string[]): Promise<LastRevision[]> {
    if (taskIds.length === 0) return [];
    const prisma = await this.prisma();
    const revisions = await prisma.taskRevision.findMany({
      where: { taskId: { in: [...taskIds] } },
      select: { taskId: true, workspaceId: true, revision: true, change: true, snapshot: true, createdAt: true },
      orderBy: { revision: 'desc' },
    });
    const newest = new Map<string, LastRevision>();
    for (const r of revisions) {
      if (newest.has(r.taskId)) continue;
      let snapshot: { identifier?: unknown; title?: unknown } = {};
      try {
        snapshot = decodeSnapshot(r.snapshot, prismaRowKey(r));
      } catch {
        /* an unreadable snapshot still says when */
      }
      newest.set(r.taskId, {
        taskId: r.taskId,
        change: r.change,
        identifier: typeof snapshot.identifier === 'string' ? snapshot.identifier : null,
        title: typeof snapshot.title === 'string' ? snapshot.title : null,
        createdAt: r.createdAt.toISOString(),
      });
    }
    return [...newest.values()];
  }
}
