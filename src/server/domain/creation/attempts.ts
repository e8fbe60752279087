// SPEC §13: "a failed attempt's error stays visible on the operation". An attempt — the creating request, or one
// recovery pass — that ends in an error which leaves the operation open (an internal error mid-step, a failed
// Complete, a recovery pass deferred) would otherwise leave nothing behind but an extra attempt count: recovery runs the
// step again and the client's 500 cannot be connected to what became of its create. So the attempt's error is kept in
// the operation's history with the request id it happened in (the client's X-Request-Id, or the id of the recovery
// takeover). A permanent step failure needs nothing here: it aborts, and the Abort's history entry holds its error.
import { isDatabaseUnavailable } from '../../db/errors';
import type { Services } from '../../services';
import { toDomainError } from '../errors/domain-error';
import type { CreationHandle } from './operation';

/** Long enough for any error worth reading, short enough that a runaway message cannot bloat the history. */
const MAX_ERROR_CHARS = 500;

/** What the attempt answered (the code every surface maps), and the error behind it when that says more. */
export function describeAttemptError(err: unknown): string {
  const answered = toDomainError(err);
  const cause = err instanceof Error ? err.message : String(err);
  const text =
    cause === answered.message ? `${answered.code}: ${cause}` : `${answered.code} (${answered.message}): ${cause}`;
  return text.slice(0, MAX_ERROR_CHARS);
}

/**
 * Records that `handle`'s attempt failed with `err`, with the step that was running. Best effort: the failure itself
 * is what the caller reports. When the database is what failed there is nowhere to write it, and trying would only
 * hold the caller's answer back: nothing is attempted (recovery's own takeover is recorded once it is back).
 */
export async function recordFailedAttempt(services: Services, handle: CreationHandle, err: unknown): Promise<void> {
  const { store } = services;
  if (toDomainError(err).code === 'database_unavailable') return;
  try {
    const op = await store.creation.findOperation(handle.operationId);
    // An operation that ended (completed, or aborted with its error in the Abort's entry) has nothing left to explain.
    if (!op || op.state === 'completed' || op.state === 'aborted') return;
    const step = (await store.creation.loadSteps(handle.operationId)).find(
      (s) => s.state === 'running' || s.state === 'unknown',
    );
    await store.creation.recordHistory({
      operationId: handle.operationId,
      at: new Date().toISOString(),
      generation: handle.generation,
      leaseOwner: services.instanceId,
      requestId: handle.requestId ?? null,
      event: {
        kind: 'attempt_failed',
        error: describeAttemptError(err),
        stepIndex: step?.index ?? null,
        stepKind: step?.kind ?? null,
      },
    });
  } catch (recordErr) {
    services.log.warn(
      { operation_id: handle.operationId, err: (recordErr as Error).message },
      'could not record a failed creation attempt',
    );
  }
}

/** How long a refund keeps waiting for the database: first retry after 250 ms, doubling to 5 s, about ten minutes in all. */
const REFUND_FIRST_DELAY_MS = 250;
const REFUND_MAX_DELAY_MS = 5_000;
const REFUND_TRIES = 125;

/**
 * Takes back the attempt a step's start counted, once the database answers again. A step's attempts bound how often
 * recovery re-runs a step whose effect it cannot find (a step that kills its process every time must not run forever);
 * an attempt the database cut short says nothing about the step, and counting it would let three outages landing on
 * the same step abort the create (SPEC §4.4: a database failure is never a step failure). Runs in the background and
 * never holds the caller's 503 back; recovery cannot claim the operation before the database is back either, so the
 * refund normally lands first — and if recovery's re-run lands first, the count still ends right (+1 then -1).
 */
export function refundAttemptWhenBack(services: Services, handle: CreationHandle, stepIndex: number): void {
  let tries = 0;
  const attempt = async (): Promise<void> => {
    try {
      await services.store.creation.refundAttempt(handle.operationId, stepIndex);
    } catch (err) {
      tries += 1;
      if (isDatabaseUnavailable(err) && tries < REFUND_TRIES) {
        setTimeout(
          () => void attempt(),
          Math.min(REFUND_MAX_DELAY_MS, REFUND_FIRST_DELAY_MS * 2 ** (tries - 1)),
        ).unref();
        return;
      }
      services.log.warn(
        { operation_id: handle.operationId, step_index: stepIndex, err: (err as Error).message },
        'could not take back an attempt the database cut short',
      );
    }
  };
  void attempt();
}
