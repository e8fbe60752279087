// SPEC §6: find creation operations whose lease expired, take a fenced recovery lease (generation + 1), reconcile
// their steps (`running` past its lease → `unknown` → verify decides), then drive the remaining steps and
// Complete, or Abort with compensation. Several processes may run this at once: they coordinate through the
// database (the creation store's claim: PostgreSQL skips rows another claimer holds; SQLite runs one immediate
// transaction at a time).
import type { Actor } from '../domain/access';
import { isDatabaseUnavailable, LeaseLostError } from '../db/errors';
import type { StepChange, StepRecord } from '../db/repositories/creation';
import { abortOperation } from '../domain/creation/abort';
import { recordFailedAttempt } from '../domain/creation/attempts';
import { complete } from '../domain/creation/complete';
import { runPlannedSteps } from '../domain/creation/coordinator';
import { UnknownStepError } from '../domain/creation/errors';
import { withLease } from '../domain/creation/fence';
import type { CreationHandle } from '../domain/creation/operation';
import { STEP_KINDS } from '../domain/creation/steps';
import { stepContext } from '../domain/creation/steps/records';
import type { Services } from '../services';

/** Re-runs of a step whose effect was not found after a crash, before it counts as failed (bounded recovery). */
const MAX_ATTEMPTS = 3;

function recoveryActor(actorId: string): Actor {
  return {
    kind: 'system',
    id: actorId,
    label: 'recovery',
    global: true,
    roles: new Map(),
    grants: new Set(),
    scopes: new Set(),
  };
}

/** Claims up to `limit` expired operations for this process. Each claim bumps the generation: the old owner is fenced out. */
export async function claimExpired(services: Services, limit = 10): Promise<CreationHandle[]> {
  const claimed = await services.store.creation.claimExpired(services.instanceId, services.leaseMs, limit);
  if (claimed.length > 0) services.metrics.recoveryTakeovers.inc(claimed.length);
  // SPEC §13: each takeover's own request id, in the log as in the operation's history, so one finds the other.
  for (const op of claimed)
    services.log.info(
      { req_id: op.requestId, operation_id: op.operationId, generation: op.generation },
      'creation recovery took over',
    );
  return claimed.map((op) => ({
    operationId: op.operationId,
    taskId: op.taskId,
    workspaceId: op.workspaceId,
    actor: recoveryActor(op.actorId),
    plan: op.plan,
    externalId: op.externalId,
    token: '',
    generation: op.generation,
    recovered: true,
    requestId: op.requestId,
  }));
}

/**
 * Reconciles steps left `running` by a dead owner. Returns false when a step's own lease has not run out yet
 * (its owner may still be mid-effect): the operation is left for a later pass.
 */
async function reconcileSteps(services: Services, handle: CreationHandle): Promise<boolean> {
  const { store } = services;
  const now = new Date().toISOString();
  for (const step of await store.creation.loadSteps(handle.operationId)) {
    if (step.state === 'running') {
      if (step.leaseExpiresAt && step.leaseExpiresAt > now) return false;
      await store.creation.recordStep(handle, step.index, { state: 'unknown' }, 'running');
      step.state = 'unknown';
    }
    if (step.state !== 'unknown') continue;
    const evidence = await STEP_KINDS[step.kind].verify(stepContext(services, handle, step), step.evidence);
    const at = new Date().toISOString();
    if (evidence) {
      await settleStep(services, handle, step, 'succeeded', {
        state: 'succeeded',
        evidence,
        finishedAt: at,
        leaseExpiresAt: null,
      });
    } else if (step.attempts < MAX_ATTEMPTS) {
      // Not made (or not all of it): steps are idempotent, so the step simply runs again, keeping its notes.
      await settleStep(services, handle, step, 'rerun', { state: 'planned', leaseExpiresAt: null });
    } else {
      const error = JSON.stringify({
        code: 'creation_step_failed',
        detail: `${step.kind}: effect not found after ${step.attempts} attempts`,
      });
      await settleStep(services, handle, step, 'failed', {
        state: 'failed',
        error,
        finishedAt: at,
        leaseExpiresAt: null,
      });
    }
  }
  return true;
}

/** Records recovery's decision about a step, and the decision in the operation's history (SPEC §13), in one fenced transaction. */
async function settleStep(
  services: Services,
  handle: CreationHandle,
  step: StepRecord,
  decision: 'succeeded' | 'rerun' | 'failed',
  change: StepChange,
) {
  await services.store.creation.fenced(handle, async (tx) => {
    await tx.creation.changeStep(handle.operationId, step.index, change);
    await tx.creation.recordHistory({
      operationId: handle.operationId,
      at: new Date().toISOString(),
      generation: handle.generation,
      leaseOwner: services.instanceId,
      requestId: handle.requestId ?? null,
      event: { kind: 'step_reconciled', stepIndex: step.index, stepKind: step.kind, decision, attempts: step.attempts },
    });
  });
}

/** The operation's state now (after a step failure or a failed Complete: did it end aborted?). */
async function stateOf(services: Services, handle: CreationHandle) {
  return (await services.store.creation.findOperation(handle.operationId))?.state;
}

/** Drives one claimed operation to `completed` or `aborted` (or leaves it for a later pass). */
export async function driveRecovered(services: Services, handle: CreationHandle): Promise<void> {
  const op = await services.store.creation.findOperation(handle.operationId);
  await withLease(services, handle, async () => {
    if (op?.state === 'aborting') {
      // A step a dead owner left running must be verified first: unknown blocks Abort (SPEC §4.4).
      if (!(await reconcileSteps(services, handle))) return;
      return abortOperation(services, handle, op.error ?? 'aborted by recovery');
    }
    if (op?.state === 'preparing') {
      if (!(await reconcileSteps(services, handle))) return;
      try {
        await runPlannedSteps(services, handle);
      } catch (err) {
        // A step failure has already aborted the operation (nobody is waiting for its error here). A database
        // failure has aborted nothing: the operation waits for a later pass (SPEC §4.4).
        if (err instanceof LeaseLostError || err instanceof UnknownStepError || isDatabaseUnavailable(err)) throw err;
        if ((await stateOf(services, handle)) === 'aborted') return;
        throw err;
      }
    }
    const result = await complete(services, handle).catch(async (err: unknown) => {
      if (isDatabaseUnavailable(err)) throw err;
      if ((await stateOf(services, handle)) === 'aborted') return { kind: 'gone' as const };
      throw err;
    });
    // SPEC §4.3: CreatedIdentityLost still dispatches; a task deleted meanwhile does not.
    if (result.kind !== 'gone') services.dispatcher.afterComplete(handle.plan);
  });
}

/**
 * One pass: claim what expired and drive each. Returns how many operations were claimed. A database failure while
 * driving one leaves it as it is (never aborted for it): its recovery lease runs out and a later pass claims it again.
 */
export async function recoverOnce(services: Services, limit = 10): Promise<number> {
  const handles = await claimExpired(services, limit);
  for (const handle of handles) {
    try {
      await driveRecovered(services, handle);
    } catch (err) {
      // Lost to a newer generation, or not finished yet: the lease runs out and a later pass continues.
      if (!(err instanceof LeaseLostError)) {
        services.log.warn(
          { req_id: handle.requestId, operation_id: handle.operationId, err: (err as Error).message },
          'creation recovery deferred',
        );
        await recordFailedAttempt(services, handle, err);
      }
    }
  }
  return handles.length;
}
