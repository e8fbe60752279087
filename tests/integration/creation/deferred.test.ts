// SPEC §5 deferred start: `blocked_by` stores one start-when-unblocked intent, promoted — and launched exactly
// once — when the last blocker's task reaches a done step; never before.
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { dispatchLaunches } from '../../../src/server/runtime/dispatcher';
import { count, uniq } from '../../support/fixtures';
import { describe, expect, it as base } from './world-test';

// The world's done step (makeWorkspace: Todo, Doing, Done), and how many launches a task has had.
const it = base
  .extend('done', { scope: 'file' }, async ({ w }) => w.ws.steps[2]!.id)
  .extend(
    'launches',
    { scope: 'file' },
    async ({ db }) =>
      (taskId: string) =>
        count(db, 'SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1', [taskId]),
  );

describe('deferred start (SPEC §5)', () => {
  it('launches exactly once when the last blocker completes, never before', async ({
    db,
    services,
    w,
    done,
    launches,
  }) => {
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
    await db.run('UPDATE tasks SET step_id = $2 WHERE id = $1', [b1.task.id, done]);
    await dispatchLaunches(services);
    expect(await launches(t.task.id)).toBe(0);

    await db.run('UPDATE tasks SET step_id = $2 WHERE id = $1', [b2.task.id, done]);
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

  it('an unknown blocker is a 400 before Begin', async ({ services, w }) => {
    const err = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      title: 't',
      blocked_by: ['no-such-task'],
    }).catch((e: Error) => e);
    expect((err as { http?: number }).http).toBe(400);
  });
});
