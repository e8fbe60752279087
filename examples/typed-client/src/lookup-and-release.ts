// Look an identity up, and release it (an operator's repair: the task is kept, the identity freed). A release needs
// an Idempotency-Key made once and reused on every retry, so a retry after a lost answer never releases twice.
import { isTetherError, type RouterOutputs, type TetherClient } from 'tether/client';

export type Holder = RouterOutputs['task']['byExternalId'];
export type Released = RouterOutputs['task']['releaseExternalId'];

/** The task holding the identity, or null when nothing holds it. */
export async function findHolder(
  tether: TetherClient,
  workspaceId: string,
  externalId: string,
): Promise<Holder | null> {
  try {
    return await tether.task.byExternalId.query({ workspace_id: workspaceId, external_id: externalId });
  } catch (err) {
    if (isTetherError(err, 'task_not_found')) return null;
    throw err;
  }
}

export type ReleaseReport =
  | { result: 'released'; release: Released }
  | { result: 'nothing holds it' }
  | { result: 'creation completing'; retried: number };

/**
 * Releases with ONE key, retrying with that same key while the holder's create is completing (SPEC §7: nothing changes
 * then, and nothing is stored, so the retry decides). Any other error is the caller's to handle.
 */
export async function releaseIdentity(
  tether: TetherClient,
  workspaceId: string,
  externalId: string,
  idempotencyKey: string = crypto.randomUUID(),
  attempts = 5,
): Promise<ReleaseReport> {
  for (let attempt = 1; ; attempt++) {
    try {
      const release = await tether.task.releaseExternalId.mutate({
        workspace_id: workspaceId,
        external_id: externalId,
        idempotency_key: idempotencyKey,
      });
      return { result: 'released', release };
    } catch (err) {
      if (isTetherError(err, 'task_not_found')) return { result: 'nothing holds it' };
      if (isTetherError(err, 'creation_completing') && attempt < attempts) {
        await new Promise((r) => setTimeout(r, 100 * attempt));
        continue;
      }
      if (isTetherError(err, 'creation_completing')) return { result: 'creation completing', retried: attempt };
      throw err;
    }
  }
}
