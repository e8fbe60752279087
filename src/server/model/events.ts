// SPEC §9: the transactional outbox. Each event is immutable, carries the revision and the task as committed (with
// `external_id` only when held), and is written in the same transaction as the change — stored as its revision's row
// (db/repositories/events.ts rebuilds the payload from it, in the form `eventPayload` gives).
import { toTaskBody, type Task, type TaskBody } from './task';

export type EventType = 'task.created' | 'task.updated' | 'task.deleted';

export interface EventPayload {
  id: string;
  type: EventType;
  workspace_id: string;
  task_id: string;
  revision: number;
  occurred_at: string;
  task: TaskBody;
}

/** The event as committed (SPEC §9): the task as it is now, with `external_id` only when held. */
export function eventPayload(e: { id: string; type: EventType; task: Task; at: string }): EventPayload {
  return {
    id: e.id,
    type: e.type,
    workspace_id: e.task.workspaceId,
    task_id: e.task.id,
    revision: e.task.revision,
    occurred_at: e.at,
    task: toTaskBody(e.task),
  };
}

/** An event as every surface delivers it (history, SSE, tRPC subscription, webhook body): the immutable payload
 *  plus its position in the outbox, which is also the SSE event id (`Last-Event-ID`). */
export type EventRecord = EventPayload & { seq: number };

/** One entry of a task's revision history (SPEC §9), as every surface shows it. */
export interface RevisionBody {
  task_id: string;
  workspace_id: string;
  revision: number;
  change: string;
  actor_id: string | null;
  created_at: string;
  task: TaskBody;
}
