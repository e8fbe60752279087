// Revisions and the transactional outbox (SPEC §9): written in the same transaction as the change they record;
// read back as history pages, by the relay, and when webhook deliveries are planned. All on the driver (hot paths).
import type { HorizonSample } from '../../domain/events/horizon';
import type { EventPayload, EventRecord, EventType, RevisionBody } from '../../model/events';
import type { Task, TaskBody } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { json, num, placeholders, str, strOrNull } from '../values';

export interface EventRow {
  seq: unknown;
  payload: unknown;
}

/** The stored payload plus its position in the outbox. */
export function toEventRecord(row: EventRow): EventRecord {
  return { seq: num(row.seq), ...json<EventPayload>(row.payload) };
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

/** One revision to append, its snapshot already JSON text (a create's, whose identifier only the statement knew). */
export interface RevisionText {
  taskId: string;
  revision: number;
  workspaceId: string;
  change: string;
  actorId: string | null;
  snapshot: string;
  at: string;
}

/** One outbox row whose payload is already JSON text; the other columns repeat the payload's fields. */
export interface EventText {
  id: string;
  workspaceId: string;
  taskId: string;
  revision: number;
  type: EventType;
  at: string;
  payload: string;
}

/** The statement text for `n` revisions, made once per `n` (every create sends the same one). */
const revisionInserts = new Map<number, string>();
function insertRevisionsText(n: number): string {
  let text = revisionInserts.get(n);
  if (text === undefined) {
    const rows = Array.from({ length: n }, (_, i) => `(${placeholders(1 + 7 * i, 7)})`);
    text = `INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ${rows.join(', ')}`;
    revisionInserts.set(n, text);
  }
  return text;
}

export class EventRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Appends `task`'s revision (its number is `task.revision`) with the snapshot the surfaces show. */
  async insertRevision(
    task: Task,
    change: string,
    actorId: string | null,
    snapshot: unknown,
    at: string,
  ): Promise<void> {
    await this.sql.run(
      'INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [task.id, task.revision, task.workspaceId, change, actorId, JSON.stringify(snapshot), at],
    );
  }

  /** Appends several revisions in one statement (a zero-step create's 0 and 1, SPEC §4.3). */
  async insertRevisions(revisions: readonly RevisionText[]): Promise<void> {
    const params: unknown[] = [];
    for (const r of revisions) params.push(r.taskId, r.revision, r.workspaceId, r.change, r.actorId, r.snapshot, r.at);
    await this.sql.run(insertRevisionsText(revisions.length), params);
  }

  /**
   * Appends one immutable outbox row. Invariant the relay relies on (domain/events/horizon.ts): it is always
   * written after the same transaction changed `tasks` or `task_revisions`, so on PostgreSQL the transaction
   * already holds an xid when `seq` is drawn.
   */
  insertEvent(payload: EventPayload): Promise<void> {
    return this.insertEventText({
      id: payload.id,
      workspaceId: payload.workspace_id,
      taskId: payload.task_id,
      revision: payload.revision,
      type: payload.type,
      at: payload.occurred_at,
      payload: JSON.stringify(payload),
    });
  }

  /** insertEvent for a payload already JSON text (the same invariant holds). */
  async insertEventText(e: EventText): Promise<void> {
    await this.sql.run(
      'INSERT INTO outbox_events (id, workspace_id, task_id, revision, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [e.id, e.workspaceId, e.taskId, e.revision, e.type, e.payload, e.at],
    );
  }

  /** SPEC §4.1 step 2: a task's workspace from retained history (revision 0 outlives the task). */
  async workspaceOfTask(taskId: string): Promise<string | undefined> {
    const row = await this.sql.one<{ workspace_id: unknown }>(
      'SELECT workspace_id FROM task_revisions WHERE task_id = $1 AND revision = 0',
      [taskId],
    );
    return row ? str(row.workspace_id) : undefined;
  }

  /** A task's revisions in order (kept after delete); empty when it never existed. */
  async listRevisions(taskId: string): Promise<RevisionBody[]> {
    const rows = await this.sql.query<RevisionRow>(
      'SELECT task_id, revision, workspace_id, change, actor_id, snapshot, created_at FROM task_revisions WHERE task_id = $1 ORDER BY revision',
      [taskId],
    );
    return rows.map(toRevisionBody);
  }

  /** A page of the outbox in seq order (history, live streams catching up, the relay's advances). */
  async listEvents(q: EventRange): Promise<EventRecord[]> {
    const params: unknown[] = [q.after, q.upTo, q.limit];
    if (q.workspaceId !== undefined) params.push(q.workspaceId);
    const rows = await this.sql.query<EventRow>(
      `SELECT seq, payload FROM outbox_events WHERE ${q.workspaceId !== undefined ? 'workspace_id = $4 AND ' : ''}seq > $1 AND seq <= $2
        ORDER BY seq LIMIT $3`,
      params,
    );
    return rows.map(toEventRecord);
  }

  /** Seq and id only, of one workspace's events in a range (webhook delivery planning). */
  async listEventKeys(q: Required<EventRange>): Promise<Array<{ seq: number; id: string }>> {
    const rows = await this.sql.query<{ seq: unknown; id: unknown }>(
      'SELECT seq, id FROM outbox_events WHERE workspace_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4',
      [q.workspaceId, q.after, q.upTo, q.limit],
    );
    return rows.map((r) => ({ seq: num(r.seq), id: str(r.id) }));
  }

  /**
   * One horizon sample (domain/events/horizon.ts). This form is right where every visible max(seq) is final:
   * SQLite has one writer at a time (BEGIN IMMEDIATE) and AUTOINCREMENT rolls back with its transaction, so there
   * are no transaction ids to wait for. PostgreSQL's form is dialect/postgres/events.ts.
   */
  async sampleHorizon(): Promise<HorizonSample> {
    const row = await this.sql.one<{ m: unknown }>('SELECT COALESCE(MAX(seq), 0) AS m FROM outbox_events');
    return { maxSeq: num(row?.m ?? 0), xmin: 0n, xmax: 0n };
  }
}
