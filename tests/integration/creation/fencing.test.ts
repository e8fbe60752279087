// SPEC §4.2 / §6 fencing: two recovery workers racing for one expired operation — exactly one claims and drives
// it; the other (and the creating request it took over from) can write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { openDb } from '../../../src/server/db/drivers';
import { complete } from '../../../src/server/domain/creation/complete';
import { runPlannedSteps } from '../../../src/server/domain/creation/coordinator';
import { LeaseLostError } from '../../../src/server/db/errors';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { claimExpired, driveRecovered } from '../../../src/server/runtime/recovery';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { testServices, uniq } from '../../support/fixtures';
import { dataDir, effectsOf, fullBody, makeWorld, operationOf, upload, type World } from './world';

let db: Db;
let db2: Db;
let a: Services;
let b: Services;
let w: World;

beforeAll(async () => {
  db = await freshDb();
  // PostgreSQL: a second pool, as a second server process would have. SQLite: one connection per process (a
  // second one in the same thread would block it synchronously); BEGIN IMMEDIATE serializes the two workers.
  db2 = db.dialect === 'postgres' ? openDb(db.url) : db;
  const config = { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() };
  a = await testServices(db, { config, instanceId: 'worker-a' });
  b = await testServices(db2, { config, instanceId: 'worker-b' });
  w = await makeWorld(a);
});
afterAll(async () => {
  if (db2 !== db) await db2?.close();
  await db?.close();
});

/** A create whose request dies (error failpoint) before the effect of its third step, left leased to gen 0. */
async function abandoned(): Promise<{ ext: string; taskId: string; identifier: string }> {
  const ext = uniq('fence-');
  a.failpoints.arm({ name: 'step_before_effect', action: 'error', match: `${ext}#2` });
  await createTask(a, w.actor, fullBody(w, ext, await upload(a, w))).catch(() => undefined);
  a.failpoints.release('step_before_effect');
  const task = (await db.one<{ id: string; identifier: string }>(
    'SELECT id, identifier FROM tasks WHERE external_id = $1',
    [ext],
  ))!;
  const past = new Date(0).toISOString();
  await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE task_id = $1', [task.id, past]);
  await db.run("UPDATE creation_steps SET lease_expires_at = $1 WHERE state = 'running'", [past]);
  return { ext, taskId: task.id, identifier: task.identifier };
}

describe('fencing (SPEC §6)', () => {
  it('of two workers racing for one expired operation, exactly one claims it', async () => {
    const { taskId } = await abandoned();
    const [ca, cb] = await Promise.all([claimExpired(a, 50), claimExpired(b, 50)]);
    const mine = [...ca, ...cb].filter((h) => h.taskId === taskId);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.generation).toBe(1);
    await driveRecovered(ca.length ? a : b, mine[0]!);
    expect((await operationOf(db, taskId)).state).toBe('completed');
  });

  it("a stale owner's writes change nothing once a newer generation claimed the operation", async () => {
    const { taskId, identifier } = await abandoned();
    const [first] = (await claimExpired(a, 50)).filter((h) => h.taskId === taskId);
    // Worker a stalls; its lease runs out and worker b takes over (generation 2) and finishes.
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE task_id = $1', [
      taskId,
      new Date(0).toISOString(),
    ]);
    const [second] = (await claimExpired(b, 50)).filter((h) => h.taskId === taskId);
    expect([first!.generation, second!.generation]).toEqual([1, 2]);
    await driveRecovered(b, second!);
    const settled = await db.one('SELECT * FROM creation_operations WHERE task_id = $1', [taskId]);
    const steps = await db.query('SELECT * FROM creation_steps WHERE operation_id = $1 ORDER BY step_index', [
      first!.operationId,
    ]);
    const task = await db.one('SELECT * FROM tasks WHERE id = $1', [taskId]);

    // The stale worker wakes up and tries to run steps and Complete with generation 1.
    // Every step already succeeded, so it has nothing to write; Complete replays the stored outcome.
    await runPlannedSteps(a, first!);
    await expect(complete(a, first!)).resolves.toMatchObject({ kind: 'created' });
    expect(await db.one('SELECT * FROM creation_operations WHERE task_id = $1', [taskId])).toEqual(settled);
    expect(
      await db.query('SELECT * FROM creation_steps WHERE operation_id = $1 ORDER BY step_index', [first!.operationId]),
    ).toEqual(steps);
    expect(await db.one('SELECT * FROM tasks WHERE id = $1', [taskId])).toEqual(task);
    expect(await effectsOf(db, w, taskId, identifier)).toMatchObject({
      folder: true,
      claims: 1,
      contributions: 1,
      sessions: 1,
      intents: 1,
    });
  });

  it('a stale owner mid-operation is refused with LeaseLostError', async () => {
    const { taskId } = await abandoned();
    const [first] = (await claimExpired(a, 50)).filter((h) => h.taskId === taskId);
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE task_id = $1', [
      taskId,
      new Date(0).toISOString(),
    ]);
    const [second] = (await claimExpired(b, 50)).filter((h) => h.taskId === taskId);
    expect(second).toBeDefined();
    const before = await db.query('SELECT * FROM creation_steps WHERE operation_id = $1 ORDER BY step_index', [
      first!.operationId,
    ]);
    // Generation 1 tries to reconcile and run: every fenced write is refused and nothing changes.
    await expect(driveRecovered(a, first!)).rejects.toBeInstanceOf(LeaseLostError);
    expect(
      await db.query('SELECT * FROM creation_steps WHERE operation_id = $1 ORDER BY step_index', [first!.operationId]),
    ).toEqual(before);
    expect((await operationOf(db, taskId)).generation).toBe(2);
  });
});
