// SPEC §4.2 / §6: the fence. Whoever holds an operation (the creating request at generation 0, or a recovery
// worker at the generation it claimed) proves it inside every transaction that writes for the operation. The
// proof is an UPDATE of the operation row: it takes the row lock until commit (a concurrent claim waits) and
// matches nothing once a claim has bumped the generation — so a stale owner's transaction rolls back whole.
import type { Db, Sql } from '../../db/types';
import type { CreationHandle } from './operation';

export class LeaseLostError extends Error {
  constructor(operationId: string) {
    super(`creation operation ${operationId} is now owned by a newer generation`);
    this.name = 'LeaseLostError';
  }
}

/** A step whose outcome is unknown blocks Complete and Abort until recovery verifies it (SPEC §4.4). */
export class UnknownStepError extends Error {
  constructor(operationId: string) {
    super(`creation operation ${operationId} has a step whose outcome is unknown`);
    this.name = 'UnknownStepError';
  }
}

type Fenced = Pick<CreationHandle, 'operationId' | 'generation'>;

/** Throws LeaseLostError unless `handle` still owns its operation. Holds the operation row lock until commit. */
export async function assertFence(tx: Sql, handle: Fenced): Promise<void> {
  const n = await tx.run('UPDATE creation_operations SET updated_at = $3 WHERE id = $1 AND generation = $2', [
    handle.operationId,
    handle.generation,
    new Date().toISOString(),
  ]);
  if (n === 0) throw new LeaseLostError(handle.operationId);
}

/** One transaction that first proves ownership. */
export function fenced<T>(db: Db, handle: Fenced, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await assertFence(tx, handle);
    return fn(tx);
  });
}

/** Extends the operation's lease and those of its running steps; false once a newer generation owns it. */
export async function renewLease(db: Db, handle: Fenced, leaseMs: number): Promise<boolean> {
  const until = new Date(Date.now() + leaseMs).toISOString();
  return db.transaction(async (tx) => {
    const n = await tx.run(
      `UPDATE creation_operations SET lease_expires_at = $3 WHERE id = $1 AND generation = $2
         AND state IN ('preparing', 'completing', 'aborting')`,
      [handle.operationId, handle.generation, until],
    );
    if (n === 0) return false;
    await tx.run("UPDATE creation_steps SET lease_expires_at = $2 WHERE operation_id = $1 AND state = 'running'", [handle.operationId, until]);
    return true;
  });
}

/** While `fn` runs, renews the lease every third of its length (SPEC §4.2: "renewed while it works"). */
export async function withLease<T>(db: Db, handle: Fenced, leaseMs: number, fn: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => {
    renewLease(db, handle, leaseMs).catch(() => {
      // A failed renewal is not fatal here: every write is fenced, so losing the lease only makes them no-ops.
    });
  }, Math.max(50, Math.floor(leaseMs / 3)));
  timer.unref?.();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
