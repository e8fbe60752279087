// SPEC §4.1 step 9: run the planned steps for a handle, recording each step's state (planned → running →
// succeeded | failed), attempts, timings, evidence and error, and renewing the operation lease while working.
// A permanent failure aborts (SPEC §4.4) and the caller gets that step's error. A database failure is never one: the
// step's outcome is unknown, so it stays `running` (or `planned`, if even that was not recorded) and the error goes
// up unchanged — the caller answers 503 and recovery (SPEC §6) verifies the step once its lease runs out, then
// finishes the operation. Found never reaches this code.
import { isDatabaseUnavailable, LeaseLostError } from '../../db/errors';
import type { StepRecord } from '../../db/repositories/creation';
import type { Services } from '../../services';
import type { DomainError } from '../errors/domain-error';
import { abortOperation } from './abort';
import { refundAttemptWhenBack } from './attempts';
import { UnknownStepError } from './errors';
import { withLease } from './fence';
import type { CreationHandle } from './operation';
import { STEP_KINDS } from './steps';
import { loadError, stepContext, storeError, toStepError } from './steps/records';

export async function runPlannedSteps(services: Services, handle: CreationHandle): Promise<void> {
  if (handle.plan.steps.length === 0) return;
  await withLease(services, handle, () => driveSteps(services, handle));
}

async function driveSteps(services: Services, handle: CreationHandle): Promise<void> {
  for (const step of await services.store.creation.loadSteps(handle.operationId)) {
    if (step.state === 'succeeded') continue;
    // A failure recorded before a crash: finish what that attempt started.
    if (step.state === 'failed') return failWith(services, handle, loadError(step.error, step.kind));
    if (step.state !== 'planned') throw new UnknownStepError(handle.operationId);
    const failure = await runStep(services, handle, step);
    if (failure) return failWith(services, handle, failure);
  }
}

/** Aborts, then surfaces the step's error. If Abort cannot finish now, the recovery runtime finishes it. */
async function failWith(services: Services, handle: CreationHandle, error: DomainError): Promise<never> {
  try {
    await abortOperation(services, handle, error);
  } catch (err) {
    if (!(err instanceof LeaseLostError))
      services.log.warn(
        { operation_id: handle.operationId, err: (err as Error).message },
        'creation abort deferred to recovery',
      );
  }
  throw error;
}

async function runStep(services: Services, handle: CreationHandle, step: StepRecord): Promise<DomainError | undefined> {
  const { leaseMs, store } = services;
  const key = `${handle.externalId ?? handle.taskId}#${step.index}`;
  const now = new Date();
  const started = await store.creation.recordStep(
    handle,
    step.index,
    {
      state: 'running',
      attempt: true,
      startedAt: now.toISOString(),
      finishedAt: null,
      leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString(),
      error: null,
    },
    'planned',
  );
  if (started === 0) throw new UnknownStepError(handle.operationId);
  try {
    return await attemptStep(services, handle, step, key);
  } catch (err) {
    // The database cut this attempt short: it is not one of the step's attempts (SPEC §4.4), so it is taken back.
    if (isDatabaseUnavailable(err)) refundAttemptWhenBack(services, handle, step.index);
    throw err;
  }
}

async function attemptStep(
  services: Services,
  handle: CreationHandle,
  step: StepRecord,
  key: string,
): Promise<DomainError | undefined> {
  const { failpoints, store } = services;
  // Test hooks before/after the effect and before/after its record (crash and database-failure tests).
  await failpoints.hit('step_before_effect', key);
  let evidence;
  try {
    evidence = await STEP_KINDS[step.kind].execute(stepContext(services, handle, step));
  } catch (err) {
    if (err instanceof LeaseLostError || isDatabaseUnavailable(err)) throw err;
    const error = toStepError(err, step.kind);
    if (error.code === 'creation_step_failed')
      services.log.warn(
        { operation_id: handle.operationId, step: step.kind, err: (err as Error).message },
        'creation step failed',
      );
    const at = new Date().toISOString();
    await store.creation.recordStep(handle, step.index, {
      state: 'failed',
      error: storeError(error),
      finishedAt: at,
      leaseExpiresAt: null,
    });
    return error;
  }
  await failpoints.hit('step_after_effect', key);
  await failpoints.hit('step_before_record', key);
  const at = new Date().toISOString();
  const recorded = await store.creation.recordStep(
    handle,
    step.index,
    { state: 'succeeded', evidence, finishedAt: at, leaseExpiresAt: null },
    'running',
  );
  if (recorded === 0) throw new UnknownStepError(handle.operationId);
  await failpoints.hit('step_after_record', key);
  return undefined;
}
