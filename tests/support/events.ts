// The stored events as tests read them, so no test restates where they are kept (SPEC §9: a revision and its event
// are one stored row — every revision after Begin's carries one). `EVENTS` is a table expression with the columns
// an event has: `seq`, `id`, `type`, `workspace_id`, `task_id`, `revision`, `task` (the task as committed, as stored:
// db/repositories/snapshots.ts; taskEvents gives the payload's `task`) and `created_at`. Use it in FROM:
// `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`.
import { EVENT_COLUMNS, rowKey, toEventRecord, type EventRow } from '../../src/server/db/repositories/events';
import { decodeSnapshot } from '../../src/server/db/repositories/snapshots';
import type { Db } from '../../src/server/db/types';
import type { EventRecord } from '../../src/server/model/events';
import type { TaskBody } from '../../src/server/model/task';

/** The events as a table expression named `alias` (PostgreSQL needs a name for a subquery in FROM). */
export function eventsTable(alias = 'events'): string {
  return `(SELECT seq, event_id AS id, event_type AS type, workspace_id, task_id, revision, snapshot AS task, created_at
    FROM task_revisions WHERE event_type IS NOT NULL) AS ${alias}`;
}

export const EVENTS = eventsTable();

/** A task's events in seq order, as every surface delivers them (the payload rebuilt by the events repository). */
export async function taskEvents(db: Db, taskId: string): Promise<EventRecord[]> {
  const rows = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM task_revisions WHERE task_id = $1 AND event_type IS NOT NULL ORDER BY seq`,
    [taskId],
  );
  return rows.map(toEventRecord);
}

/** The task as a stored revision holds it (the snapshot decoded as every reader decodes it), or undefined. */
export async function revisionTask(db: Db, taskId: string, revision: number): Promise<TaskBody | undefined> {
  const row = await db.one<{
    task_id: unknown;
    workspace_id: unknown;
    revision: unknown;
    created_at: unknown;
    snapshot: unknown;
  }>(
    'SELECT task_id, workspace_id, revision, created_at, snapshot FROM task_revisions WHERE task_id = $1 AND revision = $2',
    [taskId, revision],
  );
  return row ? decodeSnapshot(row.snapshot, rowKey(row)) : undefined;
}
