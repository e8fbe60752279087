// The built-in agent runner is real. Per launch it runs the command configured for the server
// (TETHER_AGENT_COMMAND), with the task as JSON on stdin and only a minimal environment, stops it after
// TETHER_AGENT_TIMEOUT_MS, and records its exit status and the tail of its output on the launch (the session ends
// `finished` or `failed`). Without a command, or with one that cannot start, nothing is launched and the intent
// says why. Before this change the built-in runner recorded a launch and started nothing.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { AgentRunners } from '../../../src/server/runtime/agent-runners';
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
let ws: TestWorkspace;
const dir = mkdtempSync(join(tmpdir(), 'tether-agent-'));
const AGENT = join(dir, 'agent.cjs');

beforeAll(async () => {
  db = await freshDb();
  ws = await makeWorkspace(db);
  // Reads the launch from stdin, writes what it got (and its environment) to argv[2], talks, exits with argv[3].
  writeFileSync(
    AGENT,
    `let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  require('fs').writeFileSync(process.argv[2], JSON.stringify({ input: JSON.parse(input), env: process.env }));
  console.log('x'.repeat(6000));
  console.log('hello from the agent');
  console.error('a warning on stderr');
  process.exit(Number(process.argv[3] ?? 0));
});
`,
  );
});
afterAll(async () => db?.close());

async function servicesWith(command: string[] | null, timeoutMs = 60_000): Promise<Services> {
  const config = { ...loadConfig(), failpointsEnabled: true, agents: { command, timeoutMs } };
  return testServices(db, { config, agentRunners: new AgentRunners(config.agents) });
}

/** A create with an immediate start through the built-in runner (no profile), dispatched by these services. */
async function startAgent(services: Services) {
  const out = await createTask(services, tokenActor([ws.id]), {
    workspace_id: ws.id,
    external_id: uniq('agent-'),
    title: uniq('Agent task '),
    start_agent: true,
  });
  return out.task;
}

interface LaunchRow {
  runner: string;
  detail: string;
}
const launchOf = (taskId: string) =>
  db.one<LaunchRow>('SELECT runner, detail FROM agent_launches WHERE task_id = $1', [taskId]);
const sessionState = async (taskId: string) =>
  (await db.one<{ state: string }>('SELECT state FROM agent_sessions WHERE task_id = $1', [taskId]))?.state;
const ended = async (taskId: string) => ['finished', 'failed'].includes((await sessionState(taskId)) ?? '');

describe('the built-in agent runner', () => {
  it('runs the configured command once per launch with the task on stdin and records exit 0 and the output tail', async () => {
    const out = join(dir, `${uniq('got-')}.json`);
    const services = await servicesWith([process.execPath, AGENT, out, '0']);
    const task = await startAgent(services);
    await until(() => ended(task.id), 15_000, 'the run to end');
    expect(await sessionState(task.id)).toBe('finished');
    const launch = await launchOf(task.id);
    expect(launch!.runner).toBe('builtin');
    const detail = JSON.parse(launch!.detail) as Record<string, unknown>;
    expect(detail).toMatchObject({ command: process.execPath, exit_code: 0, signal: null, timed_out: false });
    expect(detail.pid).toEqual(expect.any(Number));
    expect(String(detail.output_tail)).toContain('hello from the agent');
    expect(String(detail.output_tail)).toContain('a warning on stderr');
    expect(Buffer.byteLength(String(detail.output_tail))).toBeLessThanOrEqual(4096);

    const got = JSON.parse(readFileSync(out, 'utf8')) as {
      input: Record<string, unknown>;
      env: Record<string, string>;
    };
    expect(got.input).toMatchObject({
      intent_id: expect.any(String),
      session_id: expect.any(String),
      task: {
        id: task.id,
        identifier: task.identifier,
        title: task.title,
        workspace_id: ws.id,
        external_id: task.externalId,
      },
      profile: null,
    });
    // Only a minimal environment: nothing of the server's own settings (DATABASE_URL may hold a password).
    const allowed = new Set(['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR']);
    const extra = Object.keys(got.env).filter((k) => !allowed.has(k) && !k.startsWith('TETHER_'));
    expect(extra).toEqual([]);
    expect(got.env).toMatchObject({
      TETHER_TASK_ID: task.id,
      TETHER_TASK_IDENTIFIER: task.identifier,
      TETHER_WORKSPACE_ID: ws.id,
    });
    expect(
      Object.keys(got.env)
        .filter((k) => k.startsWith('TETHER_'))
        .sort(),
    ).toEqual([
      'TETHER_INTENT_ID',
      'TETHER_SESSION_ID',
      'TETHER_TASK_ID',
      'TETHER_TASK_IDENTIFIER',
      'TETHER_WORKSPACE_ID',
    ]);
    // Once: further dispatch passes launch nothing more.
    await dispatchLaunches(services);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1', [task.id])).toBe(1);
  });

  it('records a failing exit: the session ends failed with the exit code', async () => {
    const services = await servicesWith([process.execPath, AGENT, join(dir, `${uniq('got-')}.json`), '3']);
    const task = await startAgent(services);
    await until(() => ended(task.id), 15_000, 'the run to end');
    expect(await sessionState(task.id)).toBe('failed');
    expect(JSON.parse((await launchOf(task.id))!.detail)).toMatchObject({ exit_code: 3, timed_out: false });
  });

  it('stops a command that runs past the timeout and records that it timed out', async () => {
    const services = await servicesWith([process.execPath, '-e', 'setTimeout(() => {}, 60000)'], 300);
    const task = await startAgent(services);
    await until(() => ended(task.id), 15_000, 'the run to be stopped');
    expect(await sessionState(task.id)).toBe('failed');
    expect(JSON.parse((await launchOf(task.id))!.detail)).toMatchObject({
      exit_code: null,
      signal: 'SIGTERM',
      timed_out: true,
    });
  });

  it('stops running commands when the services close, and records how they ended', async () => {
    const services = await servicesWith([process.execPath, '-e', 'setTimeout(() => {}, 60000)']);
    const task = await startAgent(services);
    await until(async () => (await sessionState(task.id)) === 'running', 15_000, 'the run to start');
    await services.agentRunners.close();
    expect(await sessionState(task.id)).toBe('failed');
    expect(JSON.parse((await launchOf(task.id))!.detail)).toMatchObject({ signal: 'SIGTERM', timed_out: false });
  });

  it('launches nothing without a command, and the intent says what to configure', async () => {
    const services = await servicesWith(null);
    const task = await startAgent(services);
    await until(
      async () =>
        (
          await db.one<{ last_error: string | null }>('SELECT last_error FROM launch_intents WHERE task_id = $1', [
            task.id,
          ])
        )?.last_error != null,
      15_000,
      'the refusal',
    );
    const intent = await db.one<{ state: string; last_error: string }>(
      'SELECT state, last_error FROM launch_intents WHERE task_id = $1',
      [task.id],
    );
    expect(intent!.last_error).toMatch(/no agent command is configured.*TETHER_AGENT_COMMAND/);
    expect(['pending', 'failed']).toContain(intent!.state);
    expect(await launchOf(task.id)).toBeUndefined();
    expect(await sessionState(task.id)).toBe('prepared');
  });

  it('launches nothing when the command cannot start, and keeps the intent for a later attempt', async () => {
    const services = await servicesWith([join(dir, 'no-such-program')]);
    const task = await startAgent(services);
    await until(
      async () =>
        (
          await db.one<{ last_error: string | null }>('SELECT last_error FROM launch_intents WHERE task_id = $1', [
            task.id,
          ])
        )?.last_error != null,
      15_000,
      'the failure',
    );
    const intent = await db.one<{ state: string; last_error: string }>(
      'SELECT state, last_error FROM launch_intents WHERE task_id = $1',
      [task.id],
    );
    expect(intent).toMatchObject({ state: 'pending', last_error: expect.stringMatching(/ENOENT/) });
    expect(await launchOf(task.id)).toBeUndefined();
  });
});
