// The stored events as tests read them, so no test restates where they are kept (SPEC §9: a revision and its event
// are one stored row — every revision after Begin's carries one). `EVENTS` is a table expression with the columns
// an event has: `seq`, `id`, `type`, `workspace_id`, `task_id`, `revision`, `task` (the task as committed, JSON text:
// the payload's `task`) and `created_at`. Use it in FROM: `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`.
import { EVENT_COLUMNS, toEventRecord, type EventRow } from '../../src/server/db/repositories/events';
import type { Db } from '../../src/server/db/types';
import type { EventRecord } from '../../src/server/model/events';

/** The events as a table expression named `alias` (PostgreSQL needs a name for a subquery in FROM). */
export function eventsTable(alias = 'events'): string {
  return `(SELECT seq, event_id AS id, event_type AS type, workspace_id, task_id, revision, snapshot AS task, created_at
    FROM task_revisions WHERE event_id IS NOT NULL) AS ${alias}`;
}

export const EVENTS = eventsTable();

/** A task's events in seq order, as every surface delivers them (the payload rebuilt by the events repository). */
export async function taskEvents(db: Db, taskId: string): Promise<EventRecord[]> {
  const rows = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM task_revisions WHERE task_id = $1 AND event_id IS NOT NULL ORDER BY seq`,
    [taskId],
  );
  return rows.map(toEventRecord);
}
