// SPEC §4.4 — Abort: compensate every effect already made, in reverse order (or hand it to cleanup: the runtime
// retries it until it succeeds, runtime/cleanup.ts),
// remove the task row (freeing the identity), end the operation `aborted` with the error. No event is written.
// A step whose outcome is unknown blocks Abort until recovery verifies it; once `completing`, Abort is impossible.
import { isDatabaseUnavailable, LeaseLostError } from '../../db/errors';
import type { Services } from '../../services';
import type { DomainError } from '../errors/domain-error';
import { UnknownStepError } from './errors';
import type { CreationHandle } from './operation';
import { compensateStep, handOverToCleanup } from './cleanup';

export async function abortOperation(
  services: Services,
  handle: CreationHandle,
  error: DomainError | string,
): Promise<void> {
  const { store } = services;
  const message = typeof error === 'string' ? error : error.message;

  // 1. preparing → aborting, fenced.
  const state = await store.creation.fenced(handle, async (tx) => {
    const s = (await tx.creation.findOperation(handle.operationId))?.state;
    if (s === 'aborted') return s;
    if (s !== 'preparing' && s !== 'aborting') throw new Error(`cannot abort a creation operation in state ${s}`);
    if ((await tx.creation.countOpenSteps(handle.operationId)) > 0) throw new UnknownStepError(handle.operationId);
    await tx.creation.markAborting(handle.operationId, message);
    // SPEC §13: the operation's history says when Abort began (or a recovery resumed it) and why.
    await tx.creation.recordHistory({
      operationId: handle.operationId,
      at: new Date().toISOString(),
      generation: handle.generation,
      leaseOwner: services.instanceId,
      requestId: handle.requestId ?? null,
      event: { kind: 'aborting', error: message, resumed: s === 'aborting' },
    });
    return s;
  });
  if (state === 'aborted') return;

  // 2. Compensate in reverse order. A step never attempted made nothing; every other one may have (a failed
  // step can fail halfway), and compensation is idempotent, so each is compensated once to a recorded end.
  const steps = await store.creation.loadSteps(handle.operationId);
  for (const step of steps.reverse()) {
    if (
      step.attempts === 0 ||
      step.compensationState === 'compensated' ||
      step.compensationState === 'handed_to_cleanup'
    )
      continue;
    await store.creation.recordStep(handle, step.index, { compensationState: 'compensating' });
    try {
      await compensateStep(services, handle, step);
    } catch (err) {
      // A database failure is not the compensation failing: Abort stops here, `aborting`, and recovery resumes it
      // once the database is back (SPEC §4.4, §6).
      if (err instanceof LeaseLostError || isDatabaseUnavailable(err)) throw err;
      // Abort itself still finishes; the runtime retries this compensation with backoff until it succeeds, and
      // operators see it if it keeps failing (domain/creation/cleanup.ts).
      await handOverToCleanup(services, handle, step.index, (err as Error).message.slice(0, 1000));
      continue;
    }
    await store.creation.recordStep(handle, step.index, { compensationState: 'compensated' });
  }

  // Test hook: the operation is `aborting` and its task still holds the identity (release answers creation_aborting).
  await services.failpoints.hit('abort_before_remove', handle.externalId ?? handle.taskId);
  // 3. Remove the task row (task row first: the lock order of release and delete) and end the operation.
  await store.transaction(async (tx) => {
    await tx.creation.removePreparingTask(handle.taskId);
    await tx.creation.assertOwner(handle);
    await tx.creation.markAborted(handle.operationId, new Date().toISOString());
  });
  services.metrics.creationAborts.inc({ by: handle.recovered ? 'recovery' : 'request' });
}
