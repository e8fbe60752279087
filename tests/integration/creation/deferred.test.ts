// SPEC §5 deferred start: `blocked_by` stores one start-when-unblocked intent, promoted — and launched exactly
// once — when the last blocker's task reaches a done step; never before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { dispatchLaunches } from '../../../src/server/runtime/dispatcher';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { count, testServices, uniq } from '../../support/fixtures';
import { dataDir, makeWorld, type World } from './world';

let db: Db;
let services: Services;
let w: World;

beforeAll(async () => {
  db = await freshDb();
  services = await testServices(db, { config: { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() } });
  w = await makeWorld(services);
});
afterAll(async () => db.close());

const done = () => w.ws.steps[2]!.id; // makeWorkspace: Todo, Doing, Done (is_done)
const launches = (taskId: string) => count(db, 'SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1', [taskId]);

describe('deferred start (SPEC §5)', () => {
  it('launches exactly once when the last blocker completes, never before', async () => {
    const b1 = await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'blocker 1' });
    const b2 = await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'blocker 2' });
    const t = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      external_id: uniq('deferred-'),
      title: 'waits',
      start_agent: true,
      blocked_by: [b1.task.id, b2.task.id],
    });
    // Deferred plans neither session_prepare nor launch_intent: one waiting intent, stored at Complete.
    expect(await count(db, 'SELECT COUNT(*) AS n FROM agent_sessions WHERE task_id = $1', [t.task.id])).toBe(0);
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM launch_intents WHERE task_id = $1 AND state = 'waiting'", [t.task.id]),
    ).toBe(1);

    await dispatchLaunches(services);
    expect(await launches(t.task.id)).toBe(0);
    await db.run('UPDATE tasks SET step_id = $2 WHERE id = $1', [b1.task.id, done()]);
    await dispatchLaunches(services);
    expect(await launches(t.task.id)).toBe(0);

    await db.run('UPDATE tasks SET step_id = $2 WHERE id = $1', [b2.task.id, done()]);
    await Promise.all([dispatchLaunches(services), dispatchLaunches(services)]);
    await dispatchLaunches(services);
    expect(await launches(t.task.id)).toBe(1);
    // Started once (the test runner's agent command exits at once, so it may already be `finished`).
    expect(
      await count(
        db,
        "SELECT COUNT(*) AS n FROM agent_sessions WHERE task_id = $1 AND state IN ('running', 'finished')",
        [t.task.id],
      ),
    ).toBe(1);
  });

  it('an unknown blocker is a 400 before Begin', async () => {
    const err = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      title: 't',
      blocked_by: ['no-such-task'],
    }).catch((e: Error) => e);
    expect((err as { http?: number }).http).toBe(400);
  });
});
