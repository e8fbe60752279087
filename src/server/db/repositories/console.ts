// The operator console's read model (SPEC §13): cold reads on Prisma Client with explicit selects, mapped to the
// console's rows (domain/console/rows.ts). The operations and releases lists page on the driver: their statements
// (console-lists-sql.ts) are part of the contract — a page is a range of the workspace's index on both dialects,
// which tests hold by their plans — and Prisma's generated SQL would not let us say them.
import type {
  ConsoleActor,
  ConsoleEvent,
  ConsoleHistoryEntry,
  ConsoleOperation,
  ConsoleRevision,
  ConsoleStep,
  ConsoleTaskRow,
  CurrentStep,
  ListCursor,
  ListPage,
  OperationsQuery,
  OverviewCounts,
  ReleasesQuery,
} from '../../domain/console/rows';
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { bool, num, numOrNull, str, strOrNull } from '../values';
import { labelActors } from './actors';
import { impliedBegin, readEventId } from './events';
import type { TaskBody } from '../../model/task';
import { decodeSnapshot, prismaRowKey, snapshotText } from './snapshots';
import type { ReleaseHistoryEntry } from './releases';
import type { Statement } from './browse-sql';
import {
  createsByNamespaceStatement,
  heldByNamespaceStatement,
  operationsCountStatement,
  operationsPageStatement,
  releasesByNamespaceStatement,
  releasesCountStatement,
  releasesPageStatement,
} from './console-lists-sql';

const OPEN_STATES = ['preparing', 'completing', 'aborting'];

// ---- tasks -------------------------------------------------------------------------------------------------

const TASK_SELECT = {
  id: true,
  workspaceId: true,
  identifier: true,
  title: true,
  externalId: true,
  externalIdSettledAt: true,
  creationState: true,
  archivedAt: true,
  createdAt: true,
  updatedAt: true,
  revision: true,
  stepId: true,
  step: { select: { name: true } },
} as const;

interface TaskFields {
  id: string;
  workspaceId: string;
  identifier: string;
  title: string;
  externalId: string | null;
  externalIdSettledAt: Date | null;
  creationState: string;
  archivedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  revision: number;
  stepId: string;
  step: { name: string } | null;
}

function toConsoleTask(t: TaskFields): ConsoleTaskRow {
  return {
    id: t.id,
    workspace_id: t.workspaceId,
    identifier: t.identifier,
    title: t.title,
    external_id: t.externalId,
    external_id_settled_at: t.externalIdSettledAt?.toISOString() ?? null,
    creation_state: t.creationState,
    archived_at: t.archivedAt?.toISOString() ?? null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
    revision: t.revision,
    step_id: t.stepId,
    step_name: t.step?.name ?? null,
  };
}

// ---- operations --------------------------------------------------------------------------------------------

const OPERATION_SELECT = {
  id: true,
  workspaceId: true,
  taskId: true,
  actorId: true,
  externalId: true,
  state: true,
  identityReleased: true,
  generation: true,
  leaseOwner: true,
  leaseExpiresAt: true,
  outcome: true,
  error: true,
  createdAt: true,
  updatedAt: true,
  finishedAt: true,
  requestId: true,
} as const;

interface OperationFields {
  id: string;
  workspaceId: string;
  taskId: string;
  actorId: string;
  externalId: string | null;
  state: string;
  identityReleased: boolean;
  generation: number;
  leaseOwner: string | null;
  leaseExpiresAt: Date | null;
  outcome: string | null;
  error: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  requestId: string | null;
}

/** An operations page row as the driver reads it (console-lists-sql.ts). */
interface OperationRow {
  id: unknown;
  workspace_id: unknown;
  task_id: unknown;
  actor_id: unknown;
  external_id: unknown;
  state: unknown;
  identity_released: unknown;
  generation: unknown;
  lease_owner: unknown;
  lease_expires_at: unknown;
  outcome: unknown;
  error: unknown;
  created_at: unknown;
  updated_at: unknown;
  finished_at: unknown;
  request_id: unknown;
  task_identifier: unknown;
}

const dateOrNull = (v: unknown) => (v === null || v === undefined ? null : new Date(str(v)));

function operationFields(r: OperationRow): OperationFields {
  return {
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    taskId: str(r.task_id),
    actorId: str(r.actor_id),
    externalId: strOrNull(r.external_id),
    state: str(r.state),
    identityReleased: bool(r.identity_released),
    generation: num(r.generation),
    leaseOwner: strOrNull(r.lease_owner),
    leaseExpiresAt: dateOrNull(r.lease_expires_at),
    outcome: strOrNull(r.outcome),
    error: strOrNull(r.error),
    createdAt: new Date(str(r.created_at)),
    updatedAt: new Date(str(r.updated_at)),
    finishedAt: dateOrNull(r.finished_at),
    requestId: strOrNull(r.request_id),
  };
}

/** A release as the releases list shows it (console-lists-sql.ts), before its actor and attempts are named. */
export type ReleaseListRow = ReleaseHistoryEntry;

/** A replay or key conflict a release met (release_attempts). */
export interface ReleaseAttemptRow {
  releaseId: string;
  kind: 'replay' | 'conflict';
  actorId: string;
  source: string;
  externalId: string;
  requestId: string | null;
  createdAt: string;
}

/** Counts per id namespace (the part of an external id before its first `:`; null: ids without one). */
export interface NamespaceCounts {
  namespace: string | null;
  held: number;
  unsettled: number;
  creates: number;
  aborted: number;
  releases: number;
  released: number;
}

/**
 * The stored outcome is JSON (`{"kind": …}`); the console shows its kind. A `completed` operation without one is a
 * zero-step create's compact record (SPEC §9), whose outcome is `created` (compactOutcome in creation.ts).
 */
function outcomeKind(state: string, v: string | null): string | null {
  if (v === null) return state === 'completed' ? 'created' : null;
  try {
    const parsed: unknown = JSON.parse(v);
    if (parsed && typeof parsed === 'object' && 'kind' in parsed) return String((parsed as { kind: unknown }).kind);
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return v;
  }
}

interface StepProgress {
  total: number;
  succeeded: number;
  current: CurrentStep | null;
}

const UNKNOWN_ACTOR = (id: string): ConsoleActor => ({ id, kind: 'unknown', label: id.slice(0, 8) });

function toOperation(
  o: OperationFields,
  taskIdentifier: string | null,
  progress: StepProgress | undefined,
  actor: ConsoleActor | undefined,
): ConsoleOperation {
  return {
    id: o.id,
    workspace_id: o.workspaceId,
    task_id: o.taskId,
    task_identifier: taskIdentifier,
    actor_id: o.actorId,
    external_id: o.externalId,
    state: o.state,
    identity_released: o.identityReleased,
    generation: o.generation,
    lease_owner: o.leaseOwner,
    lease_expires_at: o.leaseExpiresAt?.toISOString() ?? null,
    outcome: outcomeKind(o.state, o.outcome),
    error: o.error,
    created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(),
    finished_at: o.finishedAt?.toISOString() ?? null,
    steps_total: progress?.total ?? 0,
    steps_succeeded: progress?.succeeded ?? 0,
    current_step: ['preparing', 'completing', 'aborting'].includes(o.state) ? (progress?.current ?? null) : null,
    request_id: o.requestId,
    actor: actor ?? UNKNOWN_ACTOR(o.actorId),
  };
}

/** A JSON text column shown to an operator: pretty-printed when it parses, verbatim otherwise. */
function prettyJson(v: string | null): string | null {
  if (v === null) return null;
  try {
    return JSON.stringify(JSON.parse(v), null, 2);
  } catch {
    return v;
  }
}

/** A revision's snapshot as every reader shows it (snapshots.ts), or its stored text when that does not parse. */
function shownSnapshot(r: Parameters<typeof prismaRowKey>[0] & { snapshot: string }): string {
  try {
    return snapshotText(r.snapshot, prismaRowKey(r));
  } catch {
    return r.snapshot;
  }
}

// ---- history ------------------------------------------------------------------------------------------------

/** A creation_history row (its `detail` is the JSON repositories/creation.ts wrote) as the console shows it. */
function toHistoryEntry(r: {
  at: Date;
  kind: string;
  generation: number;
  leaseOwner: string | null;
  detail: string | null;
  requestId: string | null;
}): ConsoleHistoryEntry | undefined {
  let d: Record<string, unknown> = {};
  try {
    const parsed: unknown = r.detail ? JSON.parse(r.detail) : {};
    if (parsed && typeof parsed === 'object') d = parsed as Record<string, unknown>;
  } catch {
    // A detail that does not parse still shows when it happened and what kind it was.
  }
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const base = { at: r.at.toISOString(), generation: r.generation, lease_owner: r.leaseOwner, request_id: r.requestId };
  switch (r.kind) {
    case 'takeover':
      return {
        ...base,
        kind: 'takeover',
        previous_owner: text(d.previousOwner),
        lease_expired_at: text(d.leaseExpiredAt),
        lease_until: text(d.leaseUntil),
      };
    case 'step_reconciled': {
      const decision = d.decision === 'succeeded' || d.decision === 'failed' ? d.decision : 'rerun';
      return {
        ...base,
        kind: 'step_reconciled',
        step_index: Number(d.stepIndex ?? 0),
        step_kind: text(d.stepKind) ?? '',
        decision,
        attempts: Number(d.attempts ?? 0),
      };
    }
    case 'aborting':
      return { ...base, kind: 'aborting', error: text(d.error) ?? '', resumed: d.resumed === true };
    case 'attempt_failed': {
      const index = typeof d.stepIndex === 'number' ? d.stepIndex : null;
      return {
        ...base,
        kind: 'attempt_failed',
        error: text(d.error) ?? '',
        step_index: index,
        step_kind: text(d.stepKind),
      };
    }
    default:
      return undefined; // a kind this version does not know (written by a newer one)
  }
}

// ---- events ------------------------------------------------------------------------------------------------

// An event is a revision's (every revision but Begin's has one): its id and type, and the task as committed (the
// revision's snapshot, which is the payload's `task`).
const EVENT_SELECT = {
  seq: true,
  eventId: true,
  taskId: true,
  eventType: true,
  workspaceId: true,
  revision: true,
  snapshot: true,
  createdAt: true,
} as const;

function toEvent(e: {
  seq: bigint;
  eventId: string | null;
  taskId: string;
  workspaceId: string;
  eventType: string | null;
  revision: number;
  snapshot: string;
  createdAt: Date;
}): ConsoleEvent {
  let identifier: string | null = null;
  let externalId: string | null = null;
  try {
    const t: Partial<TaskBody> = decodeSnapshot(e.snapshot, prismaRowKey(e));
    identifier = t.identifier ?? null;
    externalId = t.external_id ?? null;
  } catch {
    // A task that does not parse still lists its event's type and revision.
  }
  return {
    seq: Number(e.seq),
    id: readEventId(e.eventId, e.taskId, e.revision),
    task_id: e.taskId,
    type: e.eventType ?? '',
    revision: e.revision,
    created_at: e.createdAt.toISOString(),
    task_identifier: identifier,
    external_id: externalId,
  };
}

export class ConsoleRepository {
  constructor(
    private readonly sql: Sql,
    private readonly dialect: SqlDialect,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  async findTask(taskId: string): Promise<ConsoleTaskRow | undefined> {
    const prisma = await this.prisma();
    const task = await prisma.task.findUnique({ where: { id: taskId }, select: TASK_SELECT });
    return task ? toConsoleTask(task) : undefined;
  }

  /** Exact match on the stored (normalized) value. */
  async findTaskByExternalId(workspaceId: string, externalId: string): Promise<ConsoleTaskRow | undefined> {
    const prisma = await this.prisma();
    const task = await prisma.task.findFirst({ where: { workspaceId, externalId }, select: TASK_SELECT });
    return task ? toConsoleTask(task) : undefined;
  }

  /** Tasks holding an identity that is not settled (SPEC §4.3), oldest first. */
  async unsettledTasks(workspaceId: string, limit: number): Promise<ConsoleTaskRow[]> {
    const prisma = await this.prisma();
    const tasks = await prisma.task.findMany({
      where: { workspaceId, externalId: { not: null }, externalIdSettledAt: null },
      select: TASK_SELECT,
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
    return tasks.map(toConsoleTask);
  }

  /** The operation of each task (the newest, if a task has several), keyed by task id; no task identifiers. */
  async operationsByTask(workspaceId: string, taskIds: readonly string[]): Promise<Map<string, ConsoleOperation>> {
    if (taskIds.length === 0) return new Map();
    const prisma = await this.prisma();
    const ops = await prisma.creationOperation.findMany({
      where: { workspaceId, taskId: { in: [...taskIds] } },
      select: OPERATION_SELECT,
      orderBy: { createdAt: 'asc' },
    });
    const [progress, actors] = await Promise.all([
      this.stepProgress(ops.map((o) => o.id)),
      this.actors(ops.map((o) => o.actorId)),
    ]);
    return new Map(ops.map((o) => [o.taskId, toOperation(o, null, progress.get(o.id), actors.get(o.actorId))]));
  }

  /** One page of the workspace's operations, newest first (`more`: rows follow in the direction read). */
  async operationsPage(q: OperationsQuery, page: ListPage): Promise<{ rows: ConsoleOperation[]; more: boolean }> {
    const s = operationsPageStatement(q, page);
    const rows = await this.sql.query<OperationRow>(s.text, s.params);
    const more = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    if (page.backwards) shown.reverse();
    const fields = shown.map(operationFields);
    const [progress, actors] = await Promise.all([
      this.stepProgress(fields.map((o) => o.id)),
      this.actors(fields.map((o) => o.actorId)),
    ]);
    return {
      rows: fields.map((o, i) =>
        toOperation(o, strOrNull(shown[i]!.task_identifier), progress.get(o.id), actors.get(o.actorId)),
      ),
      more,
    };
  }

  /** Operations matching `q`, counted up to `cap`; with `newerThan`, only those listed before that row. */
  async countOperations(q: OperationsQuery, cap: number, newerThan?: ListCursor): Promise<number> {
    return this.count(operationsCountStatement(q, cap, newerThan));
  }

  /** One page of the workspace's releases, newest first. */
  async releasesPage(q: ReleasesQuery, page: ListPage): Promise<{ rows: ReleaseListRow[]; more: boolean }> {
    const s = releasesPageStatement(q, page, this.dialect);
    const rows = await this.sql.query<Record<string, unknown>>(s.text, s.params);
    const more = rows.length > page.limit;
    const shown = rows.slice(0, page.limit);
    if (page.backwards) shown.reverse();
    return {
      more,
      rows: shown.map((r) => ({
        id: str(r.id),
        idempotencyKey: str(r.idempotency_key),
        actorId: str(r.actor_id),
        source: str(r.source),
        externalId: str(r.external_id),
        holderTaskId: strOrNull(r.holder_task_id),
        holderIdentifier: strOrNull(r.holder_identifier),
        resultStatus: num(r.result_status),
        createdAt: str(r.created_at),
        reason: strOrNull(r.reason),
        requestId: strOrNull(r.request_id),
      })),
    };
  }

  async countReleases(q: ReleasesQuery, cap: number, newerThan?: ListCursor): Promise<number> {
    return this.count(releasesCountStatement(q, this.dialect, cap, newerThan));
  }

  /** The replays and key conflicts the given releases met, oldest first. */
  async releaseAttempts(releaseIds: readonly string[]): Promise<ReleaseAttemptRow[]> {
    if (releaseIds.length === 0) return [];
    const prisma = await this.prisma();
    const rows = await prisma.releaseAttempt.findMany({
      where: { releaseId: { in: [...releaseIds] } },
      select: {
        releaseId: true,
        kind: true,
        actorId: true,
        source: true,
        externalId: true,
        requestId: true,
        createdAt: true,
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map((r) => ({
      ...r,
      kind: r.kind === 'conflict' ? 'conflict' : 'replay',
      createdAt: r.createdAt.toISOString(),
    }));
  }

  /** Everyone who has released in the workspace (the releases list's actor filter). */
  async releaseActorIds(workspaceId: string): Promise<string[]> {
    const prisma = await this.prisma();
    const rows = await prisma.releaseOperation.findMany({
      where: { workspaceId },
      select: { actorId: true },
      distinct: ['actorId'],
    });
    return rows.map((r) => r.actorId);
  }

  /** Who each actor id is, for people (users, tokens, the runtime); ids nothing names are left out. */
  async actors(actorIds: readonly (string | null)[]): Promise<Map<string, ConsoleActor>> {
    return labelActors(await this.prisma(), actorIds);
  }

  /** The overview's counts per id namespace: tasks holding one, unsettled, and creates and releases since `since`. */
  async namespaces(workspaceId: string, since: string): Promise<NamespaceCounts[]> {
    const run = (s: Statement) => this.sql.query<Record<string, unknown>>(s.text, s.params);
    const [held, creates, releases] = await Promise.all([
      run(heldByNamespaceStatement(workspaceId, this.dialect)),
      run(createsByNamespaceStatement(workspaceId, since, this.dialect)),
      run(releasesByNamespaceStatement(workspaceId, since, this.dialect)),
    ]);
    const byNs = new Map<string | null, NamespaceCounts>();
    const of = (ns: unknown) => {
      const key = strOrNull(ns);
      let c = byNs.get(key);
      if (!c)
        byNs.set(
          key,
          (c = { namespace: key, held: 0, unsettled: 0, creates: 0, aborted: 0, releases: 0, released: 0 }),
        );
      return c;
    };
    for (const r of held) Object.assign(of(r.ns), { held: num(r.held), unsettled: numOrNull(r.unsettled) ?? 0 });
    for (const r of creates) Object.assign(of(r.ns), { creates: num(r.creates), aborted: numOrNull(r.aborted) ?? 0 });
    for (const r of releases)
      Object.assign(of(r.ns), { releases: num(r.releases), released: numOrNull(r.released) ?? 0 });
    return [...byNs.values()];
  }

  private async count(s: Statement): Promise<number> {
    return num((await this.sql.one<{ n: unknown }>(s.text, s.params))?.n ?? 0);
  }

  async operation(operationId: string): Promise<ConsoleOperation | undefined> {
    const prisma = await this.prisma();
    const op = await prisma.creationOperation.findUnique({ where: { id: operationId }, select: OPERATION_SELECT });
    return op ? (await this.withTaskIdentifiers([op]))[0] : undefined;
  }

  /** The newest operation that created (or is creating) the task. */
  async latestOperationOfTask(taskId: string): Promise<ConsoleOperation | undefined> {
    const prisma = await this.prisma();
    const op = await prisma.creationOperation.findFirst({
      where: { taskId },
      select: OPERATION_SELECT,
      orderBy: { createdAt: 'desc' },
    });
    return op ? (await this.withTaskIdentifiers([op]))[0] : undefined;
  }

  /** An operation's step timeline, in plan order. */
  async operationSteps(operationId: string): Promise<ConsoleStep[]> {
    const prisma = await this.prisma();
    const steps = await prisma.creationStep.findMany({
      where: { operationId },
      select: {
        stepIndex: true,
        kind: true,
        params: true,
        state: true,
        attempts: true,
        evidence: true,
        error: true,
        compensationState: true,
        compensationAttempts: true,
        compensationError: true,
        compensationNextAt: true,
        leaseExpiresAt: true,
        startedAt: true,
        finishedAt: true,
      },
      orderBy: { stepIndex: 'asc' },
    });
    return steps.map((s) => ({
      index: s.stepIndex,
      kind: s.kind,
      params: prettyJson(s.params),
      state: s.state,
      attempts: s.attempts,
      evidence: prettyJson(s.evidence),
      error: s.error,
      compensation_state: s.compensationState,
      compensation_attempts: s.compensationAttempts,
      compensation_error: s.compensationError,
      compensation_next_at: s.compensationNextAt?.toISOString() ?? null,
      lease_expires_at: s.leaseExpiresAt?.toISOString() ?? null,
      started_at: s.startedAt?.toISOString() ?? null,
      finished_at: s.finishedAt?.toISOString() ?? null,
    }));
  }

  /** The operation's history (takeovers, reconciled steps, aborts), oldest first. */
  async operationHistory(operationId: string): Promise<ConsoleHistoryEntry[]> {
    const prisma = await this.prisma();
    const rows = await prisma.creationHistory.findMany({
      where: { operationId },
      select: { at: true, kind: true, generation: true, leaseOwner: true, detail: true, requestId: true },
      // Same-millisecond entries: a later generation came later; within one, the time-ordered id keeps write order.
      orderBy: [{ at: 'asc' }, { generation: 'asc' }, { id: 'asc' }],
      take: 500,
    });
    return rows.flatMap((r) => toHistoryEntry(r) ?? []);
  }

  /** The task's revisions, newest first (a zero-step create's revision 0 rebuilt, as the history API does). */
  async revisionsOfTask(taskId: string, limit: number): Promise<ConsoleRevision[]> {
    const prisma = await this.prisma();
    const revisions = await prisma.taskRevision
      .findMany({
        where: { taskId },
        select: {
          taskId: true,
          workspaceId: true,
          revision: true,
          change: true,
          actorId: true,
          snapshot: true,
          createdAt: true,
        },
        orderBy: { revision: 'desc' },
        take: limit,
      })
      .then((rows) => rows.map((r) => ({ ...r, snapshot: shownSnapshot(r) })));
    // A short page holds the oldest stored revision last: a zero-step create's revision 1, whose 0 is not stored.
    const begin = revisions.length < limit ? impliedBegin(revisions.at(-1)) : undefined;
    if (begin) revisions.push(begin);
    const actors = await this.actors(revisions.map((r) => r.actorId));
    return revisions.map((r) => ({
      revision: r.revision,
      change: r.change,
      actor_id: r.actorId,
      actor: r.actorId === null ? null : (actors.get(r.actorId) ?? UNKNOWN_ACTOR(r.actorId)),
      snapshot: prettyJson(r.snapshot),
      created_at: r.createdAt.toISOString(),
    }));
  }

  /** The task's events, newest first. */
  async eventsOfTask(taskId: string, limit: number): Promise<ConsoleEvent[]> {
    const prisma = await this.prisma();
    const events = await prisma.taskRevision.findMany({
      where: { taskId, eventType: { not: null } },
      select: EVENT_SELECT,
      orderBy: { seq: 'desc' },
      take: limit,
    });
    return events.map(toEvent);
  }

  /** The workspace's newest events. */
  async recentEvents(workspaceId: string, limit: number): Promise<ConsoleEvent[]> {
    const prisma = await this.prisma();
    const events = await prisma.taskRevision.findMany({
      where: { workspaceId, eventType: { not: null } },
      select: EVENT_SELECT,
      orderBy: { seq: 'desc' },
      take: limit,
    });
    return events.map(toEvent);
  }

  /** The overview's counts; releases are counted from `since` on. */
  async overviewCounts(workspaceId: string, since: string): Promise<OverviewCounts> {
    const prisma = await this.prisma();
    const sinceDate = new Date(since);
    const [tasks, archived, unsettled, inFlight, releases, released] = await Promise.all([
      prisma.task.count({ where: { workspaceId } }),
      prisma.task.count({ where: { workspaceId, archivedAt: { not: null } } }),
      prisma.task.count({ where: { workspaceId, externalId: { not: null }, externalIdSettledAt: null } }),
      prisma.creationOperation.count({ where: { workspaceId, state: { in: OPEN_STATES } } }),
      prisma.releaseOperation.count({ where: { workspaceId, createdAt: { gte: sinceDate } } }),
      prisma.releaseOperation.count({ where: { workspaceId, createdAt: { gte: sinceDate }, resultStatus: 204 } }),
    ]);
    return {
      tasks,
      archived,
      unsettled,
      creations_in_flight: inFlight,
      releases_24h: releases,
      released_24h: released,
    };
  }

  /** Creates begun since `since` (oldest first, at most `limit`): when, their state and their outcome's kind. */
  async createsSince(
    workspaceId: string,
    since: string,
    limit: number,
  ): Promise<Array<{ createdAt: string; state: string; outcome: string | null }>> {
    const prisma = await this.prisma();
    const ops = await prisma.creationOperation.findMany({
      where: { workspaceId, createdAt: { gte: new Date(since) } },
      select: { createdAt: true, state: true, outcome: true },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
    return ops.map((o) => ({
      createdAt: o.createdAt.toISOString(),
      state: o.state,
      outcome: outcomeKind(o.state, o.outcome),
    }));
  }

  private async withTaskIdentifiers(ops: OperationFields[]): Promise<ConsoleOperation[]> {
    if (ops.length === 0) return [];
    const prisma = await this.prisma();
    const [tasks, progress, actors] = await Promise.all([
      prisma.task.findMany({
        where: { id: { in: [...new Set(ops.map((o) => o.taskId))] } },
        select: { id: true, identifier: true },
      }),
      this.stepProgress(ops.map((o) => o.id)),
      this.actors(ops.map((o) => o.actorId)),
    ]);
    const identifiers = new Map(tasks.map((t) => [t.id, t.identifier]));
    return ops.map((o) => toOperation(o, identifiers.get(o.taskId) ?? null, progress.get(o.id), actors.get(o.actorId)));
  }

  /** Steps per operation, how many succeeded, and the first that has not (the one an open operation is on). */
  private async stepProgress(operationIds: string[]): Promise<Map<string, StepProgress>> {
    const progress = new Map<string, StepProgress>();
    if (operationIds.length === 0) return progress;
    const prisma = await this.prisma();
    const steps = await prisma.creationStep.findMany({
      where: { operationId: { in: operationIds } },
      select: { operationId: true, stepIndex: true, kind: true, state: true, attempts: true, startedAt: true },
      orderBy: [{ operationId: 'asc' }, { stepIndex: 'asc' }],
    });
    for (const s of steps) {
      const p = progress.get(s.operationId) ?? { total: 0, succeeded: 0, current: null };
      p.total++;
      if (s.state === 'succeeded') p.succeeded++;
      else
        p.current ??= {
          index: s.stepIndex,
          kind: s.kind,
          state: s.state,
          attempts: s.attempts,
          started_at: s.startedAt?.toISOString() ?? null,
        };
      progress.set(s.operationId, p);
    }
    return progress;
  }
}
