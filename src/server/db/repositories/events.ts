// Revisions and their events (SPEC §9): one stored row each (a zero-step create stores no revision 0: every reader
// rebuilds it from revision 1, impliedBegin). A revision's event (every revision but 0, Begin) is its `event_type`
// column and its id: `event_id` where an event stored before ids were derived holds one, otherwise NULL and derived
// from the task id and revision (eventIdOf, storedEventId, readEventId). The payload every reader gets — the relay
// (webhooks, live streams), the history pages, the console — is the revision's envelope around its snapshot (the task
// as committed), rebuilt here in the order and form the payload was always written (`eventPayload` in
// model/events.ts), so its JSON text is the same. The snapshot is stored without what its row holds (snapshots.ts:
// encodeSnapshot on write, decodeSnapshot for every reader). Written in the same transaction as the change they record.
// All on the driver (hot paths).
import { v5 as uuidV5 } from 'uuid';
import type { HorizonSample } from '../../domain/events/horizon';
import type { EventRecord, EventType, RevisionBody } from '../../model/events';
import type { Task, TaskBody } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { json, num, placeholders, str, strOrNull } from '../values';
import { decodeSnapshot, encodeSnapshot, type SnapshotKey } from './snapshots';

/** The columns an event is read from (EventRow), for a `SELECT … FROM task_revisions`. */
export const EVENT_COLUMNS = 'seq, event_id, event_type, workspace_id, task_id, revision, created_at, snapshot';

/** The namespace of event ids (a random UUID, fixed for good: every derived id depends on it). */
const EVENT_ID_NAMESPACE = '7f1d4c2e-9b6a-4e0f-8c3d-5a1b2e6f9c04';

/**
 * The id of a task's event at `revision`: a name-based UUID (RFC 9562 version 5, SHA-1) of the task id and the revision
 * number. A task has at most one event per revision (uniq_task_revisions_task_revision) and task ids are never reused,
 * so it is unique, and it is the same on every read and every redelivery. The domain makes every event with it, so
 * revision rows store no id (storedEventId) and every reader derives it (readEventId); an event stored before ids were
 * derived keeps its random one, which readers return as stored.
 */
export function eventIdOf(taskId: string, revision: number): string {
  return uuidV5(`${taskId}/${revision}`, EVENT_ID_NAMESPACE);
}

/**
 * What a revision row stores for its event's id: nothing (NULL) when it is the id derived from the row (every event
 * made since ids were derived), the id itself otherwise (readEventId gives it back either way).
 */
export function storedEventId(id: string, taskId: string, revision: number): string | null {
  return id === eventIdOf(taskId, revision) ? null : id;
}

/** The id of a revision row's event: the one it stores, or the one derived from its task id and revision. */
export function readEventId(stored: unknown, taskId: unknown, revision: unknown): string {
  return stored === null || stored === undefined ? eventIdOf(str(taskId), num(revision)) : str(stored);
}

/** Which revision rows have an event (every one but Begin's), in SQL, as idx_task_revisions_workspace_events' predicate. */
export const HAS_EVENT = 'event_type IS NOT NULL';

/** A revision row that has an event, as EVENT_COLUMNS reads it. */
export interface EventRow {
  seq: unknown;
  event_id: unknown;
  event_type: unknown;
  workspace_id: unknown;
  task_id: unknown;
  revision: unknown;
  created_at: unknown;
  snapshot: unknown;
}

/**
 * The event as every surface delivers it: its position, then the payload's fields in the order `eventPayload` gives
 * them (so `JSON.stringify` writes the same text the outbox stored), the task being the revision's snapshot.
 */
export function toEventRecord(row: EventRow): EventRecord {
  return {
    seq: num(row.seq),
    id: readEventId(row.event_id, row.task_id, row.revision),
    type: str(row.event_type) as EventType,
    workspace_id: str(row.workspace_id),
    task_id: str(row.task_id),
    revision: num(row.revision),
    occurred_at: str(row.created_at),
    task: decodeSnapshot(row.snapshot, rowKey(row)),
  };
}

/** The values of a revision row, as the drivers read it, that its stored snapshot leaves out (snapshots.ts). */
export function rowKey(row: {
  task_id: unknown;
  workspace_id: unknown;
  revision: unknown;
  created_at: unknown;
}): SnapshotKey {
  return {
    taskId: str(row.task_id),
    workspaceId: str(row.workspace_id),
    revision: num(row.revision),
    at: str(row.created_at),
  };
}

/** The event a revision carries: every revision after Begin's has one. */
export interface EventKey {
  id: string;
  type: EventType;
}

/** Events with after < seq <= upTo, optionally of one workspace, at most `limit` (a whole number ≥ 1). */
export interface EventRange {
  workspaceId?: string;
  after: number;
  upTo: number;
  limit: number;
}

interface RevisionRow {
  task_id: unknown;
  revision: unknown;
  workspace_id: unknown;
  change: unknown;
  actor_id: unknown;
  snapshot: unknown;
  created_at: unknown;
}

/** The change label of Begin's revision (0) and of Complete's (1, the `task.created` one). */
export const BEGIN_CHANGE = 'begin';
export const CREATE_CHANGE = 'create';

/**
 * Revision 0 of a zero-step create, rebuilt from its revision 1 (`first`, the oldest stored revision of its task), or
 * undefined when `first` is not one. A zero-step create commits Begin and Complete as one transaction (SPEC §4.3) and
 * stores no revision 0 (SPEC §9: how is free as long as every reader sees the same thing): Begin's revision would be
 * revision 1's row as Begin had it — the same task, workspace and actor, the same clock reading, the change `begin`, no
 * event, and a snapshot that differs only in its `revision` (the snapshot has no settlement or creation state).
 * The two-phase path writes revision 0 at Begin, before any revision 1 can exist, so a task whose oldest stored
 * revision is a revision 1 `create` is a zero-step create's. Every reader of a task's revisions starts its history
 * with this (the history API, the console; the parent-workspace lookup reads the same rows). `first.snapshot` is the
 * decoded one (decodeSnapshot in snapshots.ts: the TaskBody, or its JSON text), not the stored form.
 */
export function impliedBegin<R extends { revision: unknown; change: unknown; snapshot: unknown }>(
  first: R | undefined,
): R | undefined {
  if (first === undefined || num(first.revision) !== 1 || first.change !== CREATE_CHANGE) return undefined;
  const snapshot = JSON.stringify({ ...json<TaskBody>(first.snapshot), revision: 0 });
  return { ...first, revision: 0, change: BEGIN_CHANGE, snapshot };
}

function toRevisionBody(r: RevisionRow): RevisionBody {
  return {
    task_id: str(r.task_id),
    workspace_id: str(r.workspace_id),
    revision: num(r.revision),
    change: str(r.change),
    actor_id: strOrNull(r.actor_id),
    created_at: str(r.created_at),
    task: json<TaskBody>(r.snapshot),
  };
}

/** One revision to append, its snapshot already its stored text (a create's, whose identifier only the statement knew). */
export interface RevisionText {
  taskId: string;
  revision: number;
  workspaceId: string;
  change: string;
  actorId: string | null;
  snapshot: string;
  at: string;
  /** Absent for revision 0 (Begin), which has no event. */
  event?: EventKey;
}

const REVISION_COLUMNS =
  'task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_id, event_type';

/** The statement text for `n` revisions, made once per `n` (every create sends the same one). */
const revisionInserts = new Map<number, string>();
function insertRevisionsText(n: number): string {
  let text = revisionInserts.get(n);
  if (text === undefined) {
    const rows = Array.from({ length: n }, (_, i) => `(${placeholders(1 + 9 * i, 9)})`);
    text = `INSERT INTO task_revisions (${REVISION_COLUMNS}) VALUES ${rows.join(', ')}`;
    revisionInserts.set(n, text);
  }
  return text;
}

/**
 * Events of one workspace, or of all, with after < seq <= upTo, in seq order: a range of the partial index by
 * workspace, or of the key (tests/integration/events/plans.test.ts holds both to it).
 */
export function eventRangeText(columns: string, byWorkspace: boolean): string {
  return `SELECT ${columns} FROM task_revisions WHERE ${byWorkspace ? 'workspace_id = $4 AND ' : ''}${HAS_EVENT}
    AND seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3`;
}

export class EventRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /**
   * Appends `task`'s revision (its number is `task.revision`) with the snapshot the surfaces show, and its event.
   * Invariant the relay relies on (domain/events/horizon.ts): a revision is always written after the same
   * transaction changed `tasks`, so on PostgreSQL the transaction already holds an xid when `seq` is drawn.
   */
  async insertRevision(
    task: Task,
    change: string,
    actorId: string | null,
    snapshot: TaskBody,
    at: string,
    event: EventKey,
  ): Promise<void> {
    await this.sql.run(insertRevisionsText(1), [
      task.id,
      task.revision,
      task.workspaceId,
      change,
      actorId,
      encodeSnapshot(snapshot, { taskId: task.id, workspaceId: task.workspaceId, revision: task.revision, at }),
      at,
      storedEventId(event.id, task.id, task.revision),
      event.type,
    ]);
  }

  /** Appends several revisions in one statement (Begin's revision 0, a zero-step create's revision 1); the same invariant holds. */
  async insertRevisions(revisions: readonly RevisionText[]): Promise<void> {
    const params: unknown[] = [];
    for (const r of revisions)
      params.push(
        r.taskId,
        r.revision,
        r.workspaceId,
        r.change,
        r.actorId,
        r.snapshot,
        r.at,
        r.event ? storedEventId(r.event.id, r.taskId, r.revision) : null,
        r.event?.type ?? null,
      );
    await this.sql.run(insertRevisionsText(revisions.length), params);
  }

  /**
   * SPEC §4.1 step 2: a task's workspace from retained history (revision 0 outlives the task): its stored revision 0,
   * or the revision 1 `create` a zero-step create stores instead (impliedBegin), the same workspace.
   */
  async workspaceOfTask(taskId: string): Promise<string | undefined> {
    const row = await this.sql.one<{ workspace_id: unknown }>(
      `SELECT workspace_id FROM task_revisions
       WHERE task_id = $1 AND (revision = 0 OR (revision = 1 AND change = '${CREATE_CHANGE}')) ORDER BY revision LIMIT 1`,
      [taskId],
    );
    return row ? str(row.workspace_id) : undefined;
  }

  /** A task's revisions in order (kept after delete), a zero-step create's revision 0 rebuilt; empty when it never existed. */
  async listRevisions(taskId: string): Promise<RevisionBody[]> {
    const rows = await this.sql.query<RevisionRow>(
      'SELECT task_id, revision, workspace_id, change, actor_id, snapshot, created_at FROM task_revisions WHERE task_id = $1 ORDER BY revision',
      [taskId],
    );
    const decoded = rows.map((r) => ({ ...r, snapshot: decodeSnapshot(r.snapshot, rowKey(r)) }));
    const begin = impliedBegin(decoded[0]);
    return (begin ? [begin, ...decoded] : decoded).map(toRevisionBody);
  }

  /** A page of events in seq order (history, live streams catching up, the relay's advances). */
  async listEvents(q: EventRange): Promise<EventRecord[]> {
    const params: unknown[] = [q.after, q.upTo, q.limit];
    if (q.workspaceId !== undefined) params.push(q.workspaceId);
    const rows = await this.sql.query<EventRow>(eventRangeText(EVENT_COLUMNS, q.workspaceId !== undefined), params);
    return rows.map(toEventRecord);
  }

  /** Seq and id only, of one workspace's events in a range (webhook delivery planning). */
  async listEventKeys(q: Required<EventRange>): Promise<Array<{ seq: number; id: string }>> {
    const rows = await this.sql.query<{ seq: unknown; event_id: unknown; task_id: unknown; revision: unknown }>(
      eventRangeText('seq, event_id, task_id, revision', true),
      [q.after, q.upTo, q.limit, q.workspaceId],
    );
    return rows.map((r) => ({ seq: num(r.seq), id: readEventId(r.event_id, r.task_id, r.revision) }));
  }

  /**
   * One horizon sample (domain/events/horizon.ts), over every revision (a bound on events' seqs too). This form is
   * right where every visible max(seq) is final: SQLite has one writer at a time (BEGIN IMMEDIATE) and AUTOINCREMENT
   * rolls back with its transaction, so there are no transaction ids to wait for. PostgreSQL's form is
   * dialect/postgres/events.ts.
   */
  async sampleHorizon(): Promise<HorizonSample> {
    const row = await this.sql.one<{ m: unknown }>('SELECT COALESCE(MAX(seq), 0) AS m FROM task_revisions');
    return { maxSeq: num(row?.m ?? 0), xmin: 0n, xmax: 0n };
  }
}
