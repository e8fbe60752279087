// SPEC §4.4: "every effect already made is compensated (or recorded as handed to cleanup)". A compensation that
// fails during Abort is handed to cleanup; the runtime (runtime/cleanup.ts) retries it with backoff until it
// succeeds, and one that keeps failing is shown to operators (health's `cleanup`, the console's operations page).
import type { Actor } from '../access';
import { isDatabaseUnavailable, LeaseLostError } from '../../db/errors';
import type { CleanupClaim } from '../../db/repositories/cleanup';
import type { StepRecord } from '../../db/repositories/creation';
import type { Services } from '../../services';
import type { CreationHandle } from './operation';
import { STEP_KINDS } from './steps';
import { stepContext } from './steps/records';

/** A compensation tried this many times (Abort's own included) counts as failing: operators are shown it. */
export const CLEANUP_FAILING_AFTER = 3;

/** Delay before retry number `attempts + 1` (after 1 → backoffMs, after 2 → twice that, …), capped. */
export function cleanupDelay(settings: Services['config']['cleanup'], attempts: number): number {
  return Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

/** Runs one step's compensation (a failpoint lets tests make it fail). */
export async function compensateStep(services: Services, handle: CreationHandle, step: StepRecord): Promise<void> {
  await services.failpoints.hit('compensate', `${handle.externalId ?? handle.taskId}#${step.index}`);
  await STEP_KINDS[step.kind].compensate(stepContext(services, handle, step), step.evidence);
}

/** Abort hands a failed compensation over: recorded, first retry after one backoff (inside the operation's fence). */
export async function handOverToCleanup(
  services: Services,
  handle: CreationHandle,
  index: number,
  error: string,
): Promise<void> {
  const nextAt = new Date(Date.now() + cleanupDelay(services.config.cleanup, 1)).toISOString();
  await services.store.creation.fenced(handle, (tx) => tx.cleanup.handOver(handle.operationId, index, error, nextAt));
}

function cleanupActor(actorId: string): Actor {
  return {
    kind: 'system',
    id: actorId,
    label: 'cleanup',
    global: true,
    roles: new Map(),
    grants: new Set(),
    scopes: new Set(),
  };
}

/** Retries one claimed compensation: compensated on success, rescheduled (attempts + 1, doubled delay) on failure. */
export async function retryCompensation(services: Services, claim: CleanupClaim): Promise<'compensated' | 'failed'> {
  const { store } = services;
  // The operation has ended (aborted); its generation still fences the step's own transactions.
  const handle: CreationHandle = {
    operationId: claim.operationId,
    taskId: claim.taskId,
    workspaceId: claim.workspaceId,
    actor: cleanupActor(claim.actorId),
    plan: claim.plan,
    externalId: claim.externalId,
    token: '',
    generation: claim.generation,
    recovered: true,
  };
  const step: StepRecord = {
    index: claim.index,
    kind: claim.kind,
    params: claim.params,
    state: 'failed',
    attempts: 1,
    evidence: claim.evidence,
    error: null,
    compensationState: 'handed_to_cleanup',
    leaseExpiresAt: null,
  };
  try {
    await compensateStep(services, handle, step);
  } catch (err) {
    // A database failure says nothing about the compensation: the claim's lease runs out and a later pass tries again,
    // without counting an attempt against it.
    if (err instanceof LeaseLostError || isDatabaseUnavailable(err)) throw err;
    const nextAt = new Date(Date.now() + cleanupDelay(services.config.cleanup, claim.attempts + 1)).toISOString();
    await store.cleanup.reschedule(claim.operationId, claim.index, (err as Error).message.slice(0, 1000), nextAt);
    return 'failed';
  }
  await store.cleanup.markCompensated(claim.operationId, claim.index);
  return 'compensated';
}
