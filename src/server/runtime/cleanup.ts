// SPEC §4.4: the runtime's side of "handed to cleanup" — every server process (and `tether worker`) claims due
// compensations in its recovery pass and retries each (domain/creation/cleanup.ts). A claim pushes the step's next
// attempt a lease ahead with a compare-and-set, so two processes never retry the same step at once; a process that
// dies mid-retry leaves it due again after that lease (compensations are idempotent).
import { retryCompensation } from '../domain/creation/cleanup';
import { LeaseLostError } from '../db/errors';
import type { Services } from '../services';

/** One pass: claims up to `limit` due compensations and retries each. Returns how many were compensated. */
export async function cleanupOnce(services: Services, limit = 10): Promise<number> {
  const { store } = services;
  const now = new Date();
  const until = new Date(now.getTime() + services.leaseMs).toISOString();
  let compensated = 0;
  for (const due of await store.cleanup.listDue(now.toISOString(), limit)) {
    if (!(await store.cleanup.claim(due.operationId, due.index, now.toISOString(), until))) continue;
    const claim = await store.cleanup.load(due.operationId, due.index);
    if (!claim) continue;
    try {
      if ((await retryCompensation(services, claim)) === 'compensated') compensated++;
    } catch (err) {
      // The claim's lease runs out and a later pass tries again.
      if (!(err instanceof LeaseLostError))
        services.log.warn({ err, operation_id: due.operationId, step: due.index }, 'cleanup retry deferred');
    }
  }
  return compensated;
}
