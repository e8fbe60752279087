// SPEC §4.4 — Abort: compensate every effect already made, in reverse order (or record it as handed to cleanup),
// remove the task row (freeing the identity), end the operation `aborted` with the error. No event is written.
// A step whose outcome is unknown blocks Abort until recovery verifies it; once `completing`, Abort is impossible.
import { num, str } from '../../db/values';
import type { Services } from '../../services';
import type { DomainError } from '../errors/domain-error';
import { assertFence, fenced, LeaseLostError, UnknownStepError } from './fence';
import type { CreationHandle } from './operation';
import { STEP_KINDS } from './steps';
import { loadSteps, stepContext, updateStep } from './steps/records';

export async function abortOperation(services: Services, handle: CreationHandle, error: DomainError | string): Promise<void> {
  const { db } = services;
  const message = typeof error === 'string' ? error : error.message;

  // 1. preparing → aborting.
  const state = await fenced(db, handle, async (tx) => {
    const op = await tx.one<{ state: unknown }>('SELECT state FROM creation_operations WHERE id = $1', [handle.operationId]);
    const s = str(op?.state);
    if (s === 'aborted') return s;
    if (s !== 'preparing' && s !== 'aborting') throw new Error(`cannot abort a creation operation in state ${s}`);
    const open = await tx.one<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM creation_steps WHERE operation_id = $1 AND state IN ('unknown', 'running')",
      [handle.operationId],
    );
    if (num(open?.n ?? 0) > 0) throw new UnknownStepError(handle.operationId);
    await tx.run("UPDATE creation_operations SET state = 'aborting', error = COALESCE(error, $2) WHERE id = $1", [handle.operationId, message]);
    return s;
  });
  if (state === 'aborted') return;

  // 2. Compensate in reverse order. A step never attempted made nothing; every other one may have (a failed
  // step can fail halfway), and compensation is idempotent, so each is compensated once to a recorded end.
  const steps = await loadSteps(db, handle.operationId);
  for (const step of steps.reverse()) {
    if (step.attempts === 0 || step.compensationState === 'compensated' || step.compensationState === 'handed_to_cleanup') continue;
    await updateStep(services, handle, step.index, "compensation_state = 'compensating'", []);
    let outcome = 'compensated';
    let failure: string | null = null;
    try {
      await STEP_KINDS[step.kind].compensate(stepContext(services, handle, step), step.evidence);
    } catch (err) {
      if (err instanceof LeaseLostError) throw err;
      // Recorded for an operator (the console's step timeline); Abort itself still finishes.
      outcome = 'handed_to_cleanup';
      failure = (err as Error).message;
    }
    await updateStep(services, handle, step.index, 'compensation_state = $3, error = COALESCE($4, error)', [outcome, failure]);
  }

  // 3. Remove the task row (task row first: the lock order of release and delete) and end the operation.
  await db.transaction(async (tx) => {
    await tx.run("DELETE FROM tasks WHERE id = $1 AND creation_state = 'preparing'", [handle.taskId]);
    await assertFence(tx, handle);
    const at = new Date().toISOString();
    await tx.run(
      `UPDATE creation_operations SET state = 'aborted', outcome = $2, lease_owner = NULL, lease_expires_at = NULL,
         updated_at = $3, finished_at = $3 WHERE id = $1`,
      [handle.operationId, JSON.stringify({ kind: 'aborted' }), at],
    );
  });
}
