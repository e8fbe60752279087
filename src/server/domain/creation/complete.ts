// SPEC §4.3 — Complete. It first verifies every step's evidence (an unknown step blocks it; a step that no
// longer verifies aborts). Phase A commits `preparing → completing` (from here Abort and release are refused);
// phase B, one transaction, settles the identity only if the task still holds it, writes revision 1 and
// exactly one `task.created` outbox event copied from the committed row. How each phase is stored (one
// statement on PostgreSQL, a transaction otherwise) is the creation store's business (db/repositories/creation-store.ts).
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../../db/errors';
import type { OperationRecord } from '../../db/repositories/creation';
import type { SettleRecord } from '../../db/repositories/creation-store';
import type { DeferredIntent } from '../../db/repositories/launches';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { Task } from '../../model/task';
import { abortOperation } from './abort';
import { hashToken } from './begin';
import { UnknownStepError } from './errors';
import { TASK_GONE } from '../../model/creation';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';
import { stableId } from './stable-id';
import { STEP_KINDS } from './steps';
import { loadError, stepContext, storeError } from './steps/records';

export type CompleteResult =
  | { kind: 'created' | 'created_identity_lost'; task: Task; eventId: string }
  /** The task was deleted while its creation ran: the surface's not-found, and no dispatch. */
  | { kind: 'gone' };

/** Tries of one Complete while the database is unavailable (about a second in all) before the caller gets the 503. */
const COMPLETE_TRIES = 5;

/**
 * Idempotent per handle: a replay returns the stored outcome and event id. An ambiguous commit (the database
 * went away around COMMIT) is retried with the same handle — the replay check tells whether it landed — and is
 * never turned into an Abort. If the database stays away, the DatabaseUnavailable goes up (a 503) with the operation
 * `preparing` or `completing`, and recovery (SPEC §6) completes it with the same outcome once the database is back.
 */
export async function complete(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The creating request's first call knows its operation is still `preparing` (it made it and holds the
      // lease); every other call — a retry after an ambiguous commit, a recovery handle — reads what is stored.
      return await completeOnce(services, handle, attempt === 1 && !handle.recovered);
    } catch (err) {
      if (attempt >= COMPLETE_TRIES || !isDatabaseUnavailable(err)) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

async function completeOnce(services: Services, handle: CreationHandle, fresh: boolean): Promise<CompleteResult> {
  const { store, failpoints } = services;
  const key = handle.externalId ?? handle.plan.steps.length.toString();
  const op = fresh ? { state: 'preparing' as const } : await readOperation(services, handle);
  if (!op) return { kind: 'gone' };
  if (op.state === 'completed' || op.state === 'aborted') return replayOf(services, handle, op);
  if (op.state === 'aborting') throw new Error('cannot complete an aborting creation operation');

  if (op.state === 'preparing') {
    // SPEC §4.3: every planned step succeeded, with evidence that still verifies. Unknown blocks Complete.
    const failure = handle.plan.steps.length === 0 ? undefined : await verifySteps(services, handle);
    if (failure) {
      await abortOperation(services, handle, failure);
      throw failure;
    }
    // Phase A: preparing → completing. A task deleted meanwhile: Abort compensates its effects, no dispatch.
    if ((await store.creation.enterCompleting({ ...handle, fresh })) === 'gone') return abortGone(services, handle);
  }
  await failpoints.hit('complete_between_phases', handle.externalId ?? key);

  // Phase B: settle, revision 1, the one `task.created` event; CreatedIdentityLost if released while preparing.
  const eventId = randomUUID();
  const result = await store.creation.settle(settleRecord(handle, eventId, fresh));
  if (result.kind === 'gone') return abortGone(services, handle);
  await failpoints.hit('after_complete', handle.externalId ?? key);
  return { ...result, eventId };
}

/** What phase B writes for `handle`. */
export function settleRecord(handle: CreationHandle, eventId: string, fresh: boolean): SettleRecord {
  const { plan } = handle;
  return {
    operationId: handle.operationId,
    generation: handle.generation,
    taskId: handle.taskId,
    workspaceId: handle.workspaceId,
    externalId: handle.externalId,
    actorId: handle.actor.id,
    eventId,
    fresh,
    begun: handle.begun,
    deferred: deferredIntent(plan, handle),
  };
}

/** SPEC §5 deferred start: one start-when-unblocked intent, written with the completion (so never before it). */
export function deferredIntent(
  plan: CreationPlan,
  ids: { operationId: string; workspaceId: string; taskId: string },
): Omit<DeferredIntent, 'at'> | undefined {
  if (plan.startPolicy !== 'deferred') return undefined;
  return {
    id: stableId(ids.operationId, -1, 'launch'),
    workspaceId: ids.workspaceId,
    taskId: ids.taskId,
    profileId: plan.agentProfileId ?? null,
    operationId: ids.operationId,
    blockedBy: plan.blockedBy,
  };
}

async function readOperation(services: Services, handle: CreationHandle): Promise<OperationRecord | undefined> {
  const op = await services.store.creation.findOperation(handle.operationId);
  // A recovery handle has no token: its authority is the generation it claimed (checked by every fenced write).
  if (op && !handle.recovered && op.tokenHash !== hashToken(handle.token))
    throw new Error('creation handle does not match its operation');
  return op;
}

async function replayOf(services: Services, handle: CreationHandle, op: OperationRecord): Promise<CompleteResult> {
  if (
    op.state !== 'completed' ||
    !op.outcome ||
    (op.outcome.kind !== 'created' && op.outcome.kind !== 'created_identity_lost')
  )
    return { kind: 'gone' };
  const task = await services.store.tasks.findById(handle.taskId);
  return task ? { kind: op.outcome.kind, task, eventId: op.outcome.event_id ?? '' } : { kind: 'gone' };
}

async function abortGone(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  await abortOperation(services, handle, TASK_GONE);
  return { kind: 'gone' };
}

/** Every step succeeded and its evidence still verifies; else the error to abort with. Unknown throws. */
async function verifySteps(services: Services, handle: CreationHandle): Promise<DomainError | undefined> {
  for (const step of await services.store.creation.loadSteps(handle.operationId)) {
    if (step.state === 'unknown' || step.state === 'running') throw new UnknownStepError(handle.operationId);
    if (step.state === 'failed') return loadError(step.error, step.kind);
    if (step.state === 'planned') return new DomainError('creation_step_failed', `${step.kind}: never ran`);
    const evidence = await STEP_KINDS[step.kind].verify(stepContext(services, handle, step), step.evidence);
    if (!evidence) {
      const error = new DomainError('creation_step_failed', `${step.kind}: evidence no longer verifies`);
      await services.store.creation.recordStep(handle, step.index, { state: 'failed', error: storeError(error) });
      return error;
    }
  }
  return undefined;
}
