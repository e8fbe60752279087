// SPEC §4.4: a compensation that fails during Abort is handed to cleanup, and the runtime retries
// it with backoff until it succeeds; one that keeps failing is shown to operators — in health and on the console's
// operations page — instead of being forgotten. The failure is the `compensate` failpoint in front of the real
// compensation (here: removing the task's working folder), so the effect itself is real.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { CLEANUP_FAILING_AFTER, cleanupDelay } from '../../../src/server/domain/creation/cleanup';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { healthBody } from '../../../src/server/http/health';
import { startRecoveryRuntime } from '../../../src/server/runtime';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { revisionTask } from '../../support/events';
import { testServices, uniq, until, userActor } from '../../support/fixtures';
import { dataDir, makeWorld, operationOf, type World } from './world';

let db: Db;
let services: Services;
let w: World;
const createCaller = createCallerFactory(appRouter);

beforeAll(async () => {
  db = await freshDb();
  const config = {
    ...loadConfig(),
    failpointsEnabled: true,
    dataDir: dataDir(),
    cleanup: { backoffMs: 40, maxBackoffMs: 400 },
  };
  services = await testServices(db, { config });
  w = await makeWorld(services);
});
afterAll(async () => db?.close());

interface StepRow {
  compensation_state: string | null;
  compensation_attempts: unknown;
  compensation_error: string | null;
  compensation_next_at: unknown;
}
const folderStep = (operationId: string) =>
  db.one<StepRow>(
    `SELECT compensation_state, compensation_attempts, compensation_error, compensation_next_at FROM creation_steps
     WHERE operation_id = $1 AND kind = 'workspace_attachment'`,
    [operationId],
  );

describe('compensations handed to cleanup (SPEC §4.4)', () => {
  it('backs off: the first retry after one backoff, doubling each time, capped', () => {
    const s = { backoffMs: 1000, maxBackoffMs: 5000 };
    expect([1, 2, 3, 4, 5].map((n) => cleanupDelay(s, n))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });

  it('are retried by the runtime until they succeed, shown to operators while they keep failing', async () => {
    // A contribution URL another task holds: the create's second step fails for real and the create aborts.
    const url = `https://git.example.com/acme/app/pull/${Math.floor(Math.random() * 1e9)}`;
    await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'holder', remote_contributions: [url] });
    const ext = uniq('cleanup-');
    services.failpoints.arm({ name: 'compensate', action: 'error', match: `${ext}#0` });
    await expect(
      createTask(services, w.actor, {
        workspace_id: w.ws.id,
        external_id: ext,
        title: 'doomed',
        remote_contributions: [url],
      }),
    ).rejects.toMatchObject({
      code: 'contribution_already_associated',
    });

    // Abort finished (task gone, operation aborted) but could not remove the folder: handed to cleanup.
    const op = await db.one<{ id: string; task_id: string; state: string }>(
      'SELECT id, task_id, state FROM creation_operations WHERE external_id = $1',
      [ext],
    );
    expect(op!.state).toBe('aborted');
    const handed = await folderStep(op!.id);
    expect(handed).toMatchObject({
      compensation_state: 'handed_to_cleanup',
      compensation_error: 'failpoint compensate',
    });
    expect(Number(handed!.compensation_attempts)).toBe(1);
    const identifier = (await revisionTask(db, String(op!.task_id), 0))!.identifier;
    const folder = join(w.root, identifier);
    expect(existsSync(folder)).toBe(true);

    // The runtime retries with backoff; after CLEANUP_FAILING_AFTER tries it counts as failing.
    const stop = startRecoveryRuntime(services, { pollMs: 10 });
    try {
      await until(
        async () => Number((await folderStep(op!.id))!.compensation_attempts) >= CLEANUP_FAILING_AFTER,
        10_000,
        'retries',
      );
      const failing = await folderStep(op!.id);
      expect(failing).toMatchObject({
        compensation_state: 'handed_to_cleanup',
        compensation_error: 'failpoint compensate',
      });
      expect(Date.parse(String(failing!.compensation_next_at))).toBeGreaterThan(Date.now() - 1000);

      // Shown: health's detail (to whoever can read the workspace; anyone else gets the count) and the console's
      // operations page.
      const viewer = userActor({ [w.ws.id]: 'viewer' });
      const anonymous = await healthBody(services);
      expect(anonymous.cleanup!.failing_count).toBeGreaterThanOrEqual(1);
      expect(anonymous.cleanup!.failing.map((f) => f.operation_id)).not.toContain(op!.id);
      const health = await healthBody(services, viewer);
      expect(health.ready).toBe(true); // readiness does not depend on it
      expect(health.cleanup!.pending).toBeGreaterThanOrEqual(1);
      expect(health.cleanup!.failing).toContainEqual(
        expect.objectContaining({
          operation_id: op!.id,
          kind: 'workspace_attachment',
          last_error: 'failpoint compensate',
          attempts: expect.any(Number),
        }),
      );
      const listed = await createCaller(createContextInner({ services, actor: viewer })).cleanup.list({
        workspace_id: w.ws.id,
      });
      expect(listed).toContainEqual(
        expect.objectContaining({
          operation_id: op!.id,
          external_id: ext,
          kind: 'workspace_attachment',
          failing: true,
        }),
      );
      const stranger = userActor({});
      await expect(
        createCaller(createContextInner({ services, actor: stranger })).cleanup.list({ workspace_id: w.ws.id }),
      ).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });

      // The cause goes away: the next retry succeeds and the effect is undone.
      services.failpoints.release('compensate');
      await until(
        async () => (await folderStep(op!.id))!.compensation_state === 'compensated',
        10_000,
        'the compensation',
      );
    } finally {
      await stop();
    }
    expect(existsSync(folder)).toBe(false);
    expect(await folderStep(op!.id)).toMatchObject({
      compensation_state: 'compensated',
      compensation_error: null,
      compensation_next_at: null,
    });
    expect(
      (await healthBody(services, userActor({ [w.ws.id]: 'viewer' }))).cleanup!.failing.map((f) => f.operation_id),
    ).not.toContain(op!.id);
    expect((await operationOf(db, op!.task_id)).state).toBe('aborted');
  });
});
