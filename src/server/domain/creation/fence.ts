// SPEC §4.2 / §6: the fence and the lease. Whoever holds an operation (the creating request at generation 0, or a
// recovery worker at the generation it claimed) proves it inside every transaction that writes for the operation
// (`store.creation.fenced`, `tx.creation.assertOwner`): a claim bumps the generation, after which a stale owner's
// transactions roll back whole (LeaseLostError, db/errors.ts). The lease says when recovery may claim: a live owner
// renews it while it works.
import type { Fence } from '../../db/repositories/creation';
import type { Services } from '../../services';

/** While `fn` runs, renews the lease every third of its length (SPEC §4.2: "renewed while it works"). */
export async function withLease<T>(services: Services, fence: Fence, fn: () => Promise<T>): Promise<T> {
  const { leaseMs } = services;
  const timer = setInterval(
    () => {
      services.store.creation.renewLease(fence, new Date(Date.now() + leaseMs).toISOString()).catch(() => {
        // A failed renewal is not fatal here: every write is fenced, so losing the lease only makes them no-ops.
      });
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref?.();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
