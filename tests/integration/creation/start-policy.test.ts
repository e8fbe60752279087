// SPEC §5 (amended): the start policy is decided by `start_agent` alone; `blocked_by` only chooses
// between starting now and starting when unblocked. All four combinations, each checked through what is stored
// (the plan, sessions, intents) and what a dispatch pass launches before and after the blockers are done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createAgentProfile } from '../../../src/server/domain/agents/profiles';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { dispatchLaunches } from '../../../src/server/runtime/dispatcher';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import {
  count,
  makeWorkspace,
  testServices,
  tokenActor,
  uniq,
  until,
  type TestWorkspace,
} from '../../support/fixtures';

let db: Db;
let services: Services;
let ws: TestWorkspace;
let profileId: string;
const actor = () => tokenActor([ws.id]);
const launched: string[] = [];

beforeAll(async () => {
  db = await freshDb();
  services = await testServices(db, { config: { ...loadConfig(), failpointsEnabled: true } });
  // A runner that only records what it was asked to launch: the policy is under test, not the runner.
  services.agentRunners.register({
    name: 'recording',
    async launch(req) {
      launched.push(req.taskId);
      return {};
    },
  });
  ws = await makeWorkspace(db); // Todo, Doing, Done (done)
  profileId = (await createAgentProfile(services.store, { workspaceId: ws.id, name: uniq('p'), runner: 'recording' }))
    .id;
});
afterAll(async () => db?.close());

async function blocker(): Promise<string> {
  return (await createTask(services, actor(), { workspace_id: ws.id, title: 'blocker' })).task.id;
}

async function stored(taskId: string) {
  const op = await db.one<{ plan: string | null }>('SELECT plan FROM creation_operations WHERE task_id = $1', [taskId]);
  return {
    // A zero-step create's compact operation stores no plan when it is the empty one (SPEC §9): it starts nothing.
    policy: op!.plan === null ? 'none' : (JSON.parse(op!.plan) as { startPolicy: string }).startPolicy,
    sessions: await count(db, 'SELECT COUNT(*) AS n FROM agent_sessions WHERE task_id = $1', [taskId]),
    intents: await count(db, 'SELECT COUNT(*) AS n FROM launch_intents WHERE task_id = $1', [taskId]),
    launches: await count(db, 'SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1', [taskId]),
  };
}

/** Moves the blockers to the done step and runs dispatch twice (promotion, then launch). */
async function finishBlockers(ids: string[]): Promise<void> {
  for (const id of ids) await db.run('UPDATE tasks SET step_id = $2 WHERE id = $1', [id, ws.steps[2]!.id]);
  await dispatchLaunches(services);
  await dispatchLaunches(services);
}

describe('start policy: start_agent × blocked_by (SPEC §5)', () => {
  it('no start_agent, no blockers → none: nothing prepared, nothing launched', async () => {
    const t = await createTask(services, actor(), {
      workspace_id: ws.id,
      external_id: uniq('sp-'),
      title: 't',
      agent_profile_id: profileId,
    });
    await dispatchLaunches(services);
    expect(await stored(t.task.id)).toEqual({ policy: 'none', sessions: 0, intents: 0, launches: 0 });
  });

  it('no start_agent, with blockers → none: blockers alone never schedule an agent, not even once they are done', async () => {
    const b = await blocker();
    const t = await createTask(services, actor(), {
      workspace_id: ws.id,
      external_id: uniq('sp-'),
      title: 't',
      agent_profile_id: profileId,
      blocked_by: [b],
    });
    expect(await stored(t.task.id)).toEqual({ policy: 'none', sessions: 0, intents: 0, launches: 0 });
    await finishBlockers([b]);
    expect(await stored(t.task.id)).toEqual({ policy: 'none', sessions: 0, intents: 0, launches: 0 });
    expect(launched).not.toContain(t.task.id);
  });

  it('start_agent false, with blockers → none as well', async () => {
    const b = await blocker();
    const t = await createTask(services, actor(), {
      workspace_id: ws.id,
      title: 't',
      start_agent: false,
      blocked_by: [b],
    });
    await finishBlockers([b]);
    expect(await stored(t.task.id)).toEqual({ policy: 'none', sessions: 0, intents: 0, launches: 0 });
  });

  it('start_agent, no blockers → immediate: one session and one intent, launched once after Complete', async () => {
    const t = await createTask(services, actor(), {
      workspace_id: ws.id,
      external_id: uniq('sp-'),
      title: 't',
      start_agent: true,
      agent_profile_id: profileId,
    });
    expect(await stored(t.task.id)).toMatchObject({ policy: 'immediate', sessions: 1, intents: 1 });
    // The dispatcher starts a pass right after Complete; this one may find the intent already claimed by it.
    await dispatchLaunches(services);
    await until(async () => (await stored(t.task.id)).launches === 1, 10_000, 'the launch');
    expect(await stored(t.task.id)).toEqual({ policy: 'immediate', sessions: 1, intents: 1, launches: 1 });
  });

  it('start_agent, with blockers → deferred: one waiting intent, launched once when the last blocker is done', async () => {
    const [b1, b2] = [await blocker(), await blocker()];
    const t = await createTask(services, actor(), {
      workspace_id: ws.id,
      external_id: uniq('sp-'),
      title: 't',
      start_agent: true,
      agent_profile_id: profileId,
      blocked_by: [b1, b2],
    });
    expect(await stored(t.task.id)).toEqual({ policy: 'deferred', sessions: 0, intents: 1, launches: 0 });
    await finishBlockers([b1]);
    expect((await stored(t.task.id)).launches).toBe(0);
    await finishBlockers([b2]);
    expect(await stored(t.task.id)).toEqual({ policy: 'deferred', sessions: 1, intents: 1, launches: 1 });
  });
});
