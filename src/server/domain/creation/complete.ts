// SPEC §4.3 — Complete. It first verifies every step's evidence (an unknown step blocks it; a step that no
// longer verifies aborts). Phase A commits `preparing → completing` (from here Abort and release are refused);
// phase B, one transaction, settles the identity only if the task still holds it, writes revision 1 and
// exactly one `task.created` outbox event. The rows each phase writes are computed here (rows.ts); how they are
// stored (one statement on PostgreSQL, a transaction otherwise) is the creation store's business
// (db/repositories/creation-store.ts), which says what it found (a task gone, a lease lost) for this code to act on.
import { isDatabaseUnavailable, LeaseLostError } from '../../db/errors';
import type { OperationRecord } from '../../db/repositories/creation';
import { eventIdOf } from '../../db/repositories/events';
import type { DeferredIntent } from '../../db/repositories/launches';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { Task } from '../../model/task';
import { abortOperation } from './abort';
import { hashToken } from './begin';
import { TASK_GONE, UnknownStepError } from './errors';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';
import { settleRows } from './rows';
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
    const entered = await store.creation.enterCompleting({ ...handle, fresh });
    if (entered.kind === 'task_missing') return abortGone(services, handle);
    if (entered.kind === 'task_moved') throw new Error(`cannot complete a task in state ${entered.state}`);
    if (entered.kind === 'operation_moved') throw new Error('creation operation is no longer preparing');
  }
  await failpoints.hit('complete_between_phases', handle.externalId ?? key);

  // Phase B: settle, revision 1, the one `task.created` event; CreatedIdentityLost if released while preparing.
  // The rows are computed from the task as Begin wrote it: the creating request holds it, anyone else reads it (after
  // phase A nothing changes it but a release of its identity, which phase B tells apart, or a delete).
  const base = handle.begun ?? (await store.tasks.findById(handle.taskId));
  if (!base) return abortGone(services, handle);
  const eventId = eventIdOf(handle.taskId, 1);
  const rows = settleRows(handle, base, eventId, fresh, new Date().toISOString(), deferredIntent(handle.plan, handle));
  const settled = await store.creation.settle(rows);
  if (settled.kind === 'task_missing') return abortGone(services, handle);
  // The operation's last write found a newer generation: the whole transaction rolled back.
  if (settled.kind === 'lease_lost') throw new LeaseLostError(handle.operationId);
  await failpoints.hit('after_complete', handle.externalId ?? key);
  return settled.kind === 'held'
    ? { kind: 'created', task: rows.held.task, eventId }
    : { kind: 'created_identity_lost', task: rows.lost!.task, eventId };
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

/** The task was deleted while its creation ran: the operation is marked aborting (fenced), then Abort compensates. */
async function abortGone(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  await services.store.creation.fenced(handle, (tx) => tx.creation.markAborting(handle.operationId, TASK_GONE));
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
