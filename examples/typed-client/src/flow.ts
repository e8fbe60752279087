// The whole story of one external identity, through the typed client: create, a redelivery, the event, lookup,
// release (and its retry with the same key), and the identity's second life as a new task.
import type { TetherClient } from 'tether/client';
import { createFromTicket, describeCreate, type CreateReport } from './create-task';
import { findHolder, releaseIdentity } from './lookup-and-release';
import { currentPosition, waitForEvent } from './watch-events';

export interface FlowReport {
  first: { id: string; report: CreateReport };
  redelivery: { id: string; report: CreateReport };
  event: { type: string; taskId: string; seq: number };
  holder: { id: string; creationComplete: boolean } | null;
  release: { released: boolean; replayed: boolean; holderTaskId: string };
  retry: { replayed: boolean; sameRelease: boolean };
  afterRelease: { holder: string | null; nobody: string };
  reborn: { id: string; report: CreateReport };
}

export async function runFlow(tether: TetherClient, workspaceId: string, ticket: string): Promise<FlowReport> {
  const externalId = `jira:${ticket}`;
  // Where the workspace's history stands now: listening from here, the task's creation event cannot be missed.
  const position = await currentPosition(tether, workspaceId);
  const created = waitForEvent(
    tether,
    workspaceId,
    position,
    (e) => e.data.type === 'task.created' && e.data.task.external_id === externalId,
  );

  const first = await createFromTicket(tether, workspaceId, ticket, `Fix ${ticket}`);
  // A redelivery of the same ticket (a webhook retried, say) — even with another title — lands on the same task.
  const again = await createFromTicket(tether, workspaceId, ticket, 'A drifted title');
  const event = await created;

  const holder = await findHolder(tether, workspaceId, externalId);

  const key = crypto.randomUUID();
  const released = await releaseIdentity(tether, workspaceId, externalId, key);
  if (released.result !== 'released') throw new Error(`release: ${released.result}`);
  // The answer was "lost": retry with the SAME key. The stored result comes back; nothing is released twice.
  const retried = await releaseIdentity(tether, workspaceId, externalId, key);
  if (retried.result !== 'released') throw new Error(`retry: ${retried.result}`);

  const gone = await findHolder(tether, workspaceId, externalId);
  const nobody = await releaseIdentity(tether, workspaceId, `${externalId}-never-held`);
  // No tombstone: the same identity now creates a NEW task.
  const reborn = await createFromTicket(tether, workspaceId, ticket, `Fix ${ticket} again`);

  return {
    first: { id: first.id, report: describeCreate(first) },
    redelivery: { id: again.id, report: describeCreate(again) },
    event: { type: event.data.type, taskId: event.data.task.id, seq: event.data.seq },
    holder: holder && { id: holder.id, creationComplete: holder.creation_complete },
    release: {
      released: released.release.released,
      replayed: released.release.replayed,
      holderTaskId: released.release.holder_task_id,
    },
    retry: {
      replayed: retried.release.replayed,
      sameRelease: retried.release.release_id === released.release.release_id,
    },
    afterRelease: { holder: gone?.id ?? null, nobody: nobody.result },
    reborn: { id: reborn.id, report: describeCreate(reborn) },
  };
}
