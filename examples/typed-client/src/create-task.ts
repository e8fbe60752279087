// Find-or-create keyed by an identity we already own (a ticket key). Send it as often as you like: the same external
// thing lands on the same task. Read both booleans before saying what happened.
import type { RouterOutputs, TetherClient } from 'tether/client';

export type CreatedTask = RouterOutputs['task']['create'];

export type CreateReport = 'created' | 'already there' | 'already there, still being created';

export async function createFromTicket(
  tether: TetherClient,
  workspaceId: string,
  ticket: string,
  title: string,
): Promise<CreatedTask> {
  return tether.task.create.mutate({ workspace_id: workspaceId, external_id: `jira:${ticket}`, title });
}

export function describeCreate(task: CreatedTask): CreateReport {
  if (!task.deduplicated) return 'created';
  // Another create holds the identity and had not finished its required setup when observed: it may still be
  // running. Do not assume the task is ready — and never release and recreate it.
  if (!task.creation_complete) return 'already there, still being created';
  return 'already there';
}
