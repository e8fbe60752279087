// SPEC §13: the console's unsettled identities and creation operations follow the truth within about two seconds —
// also when the create runs in ANOTHER server process. A create's Begin, step progress, lease renewals, takeovers and
// aborts send no event, so the console polls `console.pulse`: a per-workspace signature of the open creation
// operations read from the database (domain/console/pulse.ts). These tests run the create on one Services and read
// the pulse on a second (on PostgreSQL over its own pool, as a second process would), and check that the signature
// moves on each of those changes, that a lease renewal moves only `leases`, and that the read uses the open-operations
// index on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/server/domain/access';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import { openDb } from '../../../src/server/db/drivers';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { claimExpired, driveRecovered } from '../../../src/server/runtime/recovery';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import {
  makeWorkspace,
  testServices,
  tokenActor,
  uniq,
  until,
  userActor,
  withPlannedStep,
  type TestWorkspace,
} from '../../support/fixtures';

const createCaller = createCallerFactory(appRouter);

let db: Db;
let db2: Db;
let creator: Services;
let watcher: Services;
let ws: TestWorkspace;
let bot: Actor;
let viewer: Actor;

beforeAll(async () => {
  db = await freshDb();
  // PostgreSQL: a second pool, as a second server process has. SQLite: one connection per process (a second one in
  // this thread would block it synchronously), so the two Services share it — each still has its own pulse.
  db2 = db.dialect === 'postgres' ? openDb(db.url) : db;
  creator = await testServices(db, { instanceId: 'creator' });
  watcher = await testServices(db2, { instanceId: 'watcher' });
  ws = await makeWorkspace(db);
  bot = tokenActor([ws.id]);
  viewer = userActor({ [ws.id]: 'viewer' });
});
afterAll(async () => {
  creator?.failpoints.releaseAll();
  if (db2 !== db) await db2?.close();
  await db?.close();
});

const pulse = (actor: Actor = viewer) =>
  createCaller(createContextInner({ services: watcher, actor, source: 'console' })).console.pulse({
    workspace_id: ws.id,
  });

/** Waits until the pulse read by the OTHER process satisfies `cond`; returns it and how long that took. */
async function pulseUntil(cond: (p: Awaited<ReturnType<typeof pulse>>) => boolean, what: string) {
  const started = Date.now();
  let last = await pulse();
  await until(async () => cond((last = await pulse())), 5_000, what);
  return { pulse: last, ms: Date.now() - started };
}

/** Resolves once a create is paused at failpoint `name`. */
const pausedAt = (name: string) =>
  until(() => (creator.failpoints.paused.get(name) ?? 0) > 0, 5_000, `a create paused at ${name}`);

describe('console.pulse (SPEC §13)', () => {
  it('a create begun in another process moves the signature at Begin, at each step record, at Complete, and when it ends', async () => {
    const quiet = await pulse();
    expect(quiet.open).toBe(0);
    const ext = uniq('pulse-');
    for (const name of ['after_begin', 'step_after_record', 'complete_between_phases'])
      creator.failpoints.arm({ name, action: 'pause', match: name === 'step_after_record' ? `${ext}#0` : ext });
    const pending = createTask(
      creator,
      bot,
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Watched' }),
    );

    await pausedAt('after_begin');
    const begun = await pulseUntil((p) => p.open === 1, 'the begun create');
    // The watcher shares one read per 250 ms: the change is visible well within the console's one-second poll.
    expect(begun.ms).toBeLessThan(1_000);

    creator.failpoints.release('after_begin');
    await pausedAt('step_after_record');
    const stepped = await pulseUntil((p) => p.signature !== begun.pulse.signature, 'the recorded step');
    expect(stepped.pulse.open).toBe(1);

    creator.failpoints.release('step_after_record');
    await pausedAt('complete_between_phases');
    const completing = await pulseUntil((p) => p.signature.includes('completing:1'), 'phase A');
    expect(completing.pulse.signature).not.toContain('preparing:');

    creator.failpoints.release('complete_between_phases');
    await pending;
    const ended = await pulseUntil((p) => p.open === 0, 'the settled create');
    expect(ended.pulse).toEqual({ open: 0, signature: '', leases: '' });
  });

  it('a lease renewal moves only `leases`; a recovery takeover moves the signature', async () => {
    const ext = uniq('lease-');
    creator.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext });
    const pending = createTask(
      creator,
      bot,
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Leased' }),
    );
    try {
      await pausedAt('after_begin');
      const before = await pulseUntil((p) => p.open === 1, 'the begun create');
      const op = (await db.one<{ id: string; generation: number }>(
        'SELECT id, generation FROM creation_operations WHERE external_id = $1',
        [ext],
      ))!;

      // The creating request renews (what withLease does every third of the lease).
      await creator.store.creation.renewLease(
        { operationId: op.id, generation: op.generation },
        new Date(Date.now() + 3_600_000).toISOString(),
      );
      const renewed = await pulseUntil((p) => p.leases !== before.pulse.leases, 'the renewal');
      expect(renewed.pulse.signature).toBe(before.pulse.signature);

      // Its lease runs out and another process takes over: the generation moves.
      await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE id = $1', [
        op.id,
        new Date(0).toISOString(),
      ]);
      const [handle] = (await claimExpired(watcher, 50)).filter((h) => h.operationId === op.id);
      expect(handle?.generation).toBe(1);
      const taken = await pulseUntil((p) => p.signature !== renewed.pulse.signature, 'the takeover');
      expect(taken.pulse.open).toBe(1);
      await driveRecovered(watcher, handle!);
      await pulseUntil((p) => p.open === 0, 'the recovered create');
    } finally {
      creator.failpoints.release('after_begin');
      await pending.catch(() => undefined); // the stale creator lost its lease: its own outcome is not under test
    }
  });

  it('is refused for a workspace the caller cannot read, like every console read', async () => {
    await expect(pulse(userActor({}))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('reads the open-operations index, not the table (its WHERE is the partial index predicate)', async () => {
    const sql = (await import('../../../src/server/db/repositories/pulse')).PulseRepository;
    // The statement the repository sends, captured from a driver that records what it is asked.
    let statement = '';
    await new sql({ query: async (text: string) => ((statement = text), []) } as never).openOperations();
    expect(statement).toContain("WHERE state IN ('preparing', 'completing', 'aborting')");
    if (db.dialect === 'sqlite') {
      const plan = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${statement}`);
      expect(plan.map((r) => r.detail).join('\n')).toContain('idx_creation_operations_open');
    } else {
      // Whether PostgreSQL prefers the index depends on table size; that it CAN use it proves the predicate matches.
      const plan = await db.transaction(async (tx) => {
        await tx.run('SET LOCAL enable_seqscan = off');
        return tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement}`);
      });
      expect(plan.map((r) => r['QUERY PLAN']).join('\n')).toContain('idx_creation_operations_open');
    }
  });
});
