// The crash matrix (SPEC §6): a real child process runs a create with every step kind and is killed by
// SIGKILL at one failpoint; the recovery runtime (here, in the test process) must converge the operation to
// `completed` or `aborted` with every effect made exactly once (or none), the identity held by one task or none,
// and a caller retrying meanwhile must get Found — or, after an abort, a fresh Created.
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { startRecoveryRuntime, type StopRuntime } from '../../../src/server/runtime';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, testServices, tokenActor, uniq, until } from '../../support/fixtures';
import {
  dataDir,
  effectsOf,
  expectEveryEffectOnce,
  fullBody,
  makeWorld,
  operationOf,
  upload,
  type World,
} from './world';
import { bundled, CHILD_NODE_FLAGS } from '../../support/processes';
import { EVENTS } from '../../support/events';

// Long enough that a child slowed by its siblings still holds its lease when it reaches the failpoint.
const LEASE_MS = 1500;
// Bundled once with its packages (tests/support/processes.ts): the matrix starts it thirty times.
const CHILD = 'tests/support/creation-crash-child.ts';
const STEPS = 6; // folder, claim, branch, contribution, session_prepare, launch_intent
const STEP_POINTS = ['step_before_effect', 'step_after_effect', 'step_before_record', 'step_after_record'];

interface Case {
  failpoint: string;
  step?: number;
}
const CASES: Case[] = [
  { failpoint: 'after_begin' },
  ...STEP_POINTS.flatMap((failpoint) => Array.from({ length: STEPS }, (_, step) => ({ failpoint, step }))),
  { failpoint: 'complete_between_phases' },
  { failpoint: 'after_complete' },
];

let db: Db;
let services: Services;
let w: World;
let stop: StopRuntime;

beforeAll(async () => {
  db = await freshDb();
  services = await testServices(db, {
    leaseMs: LEASE_MS,
    config: { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() },
  });
  w = await makeWorld(services);
  stop = startRecoveryRuntime(services, { pollMs: 100 });
});
afterAll(async () => {
  await stop?.();
  await db?.close();
});

async function runChild(
  body: Record<string, unknown>,
  failpoint: string,
  match: string,
  opts: { workspaceId?: string } = {},
): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  const entry = await bundled(CHILD, { withPackages: true });
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...CHILD_NODE_FLAGS, entry], {
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        TETHER_LEASE_MS: String(LEASE_MS),
        TETHER_FAILPOINTS: '1',
        CRASH_FAILPOINT: failpoint,
        CRASH_MATCH: match,
        CREATE_WORKSPACE: opts.workspaceId ?? w.ws.id,
        CREATE_BODY: JSON.stringify(body),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('exit', (code, signal) =>
      code && code !== 0 ? fail(new Error(`child exited ${code}: ${stderr}`)) : done({ signal, stdout }),
    );
  });
}

async function crashAndConverge(c: Case): Promise<void> {
  const ext = uniq('crash-');
  const body = fullBody(w, ext, await upload(services, w));
  const child = await withSlot(() => runChild(body, c.failpoint, c.step === undefined ? ext : `${ext}#${c.step}`));
  expect(child.signal, `the child must die at ${c.failpoint}`).toBe('SIGKILL');

  // A caller retrying meanwhile gets Found (unsettled or settled), or — only after an abort — a fresh Created.
  const retry = await createTask(services, w.actor, body);
  const task = await db.one<{ id: string; identifier: string }>(
    'SELECT id, identifier FROM tasks WHERE workspace_id = $1 AND external_id = $2',
    [w.ws.id, ext],
  );
  expect(task).toBeDefined();
  if (retry.kind === 'created') return; // the crashed create was aborted first; the identity was free again
  expect(['found_unsettled', 'found_settled']).toContain(retry.kind);
  expect(retry.task.id).toBe(task!.id);

  await until(
    async () => ['completed', 'aborted'].includes((await operationOf(db, task!.id)).state),
    20_000,
    `${c.failpoint} converges`,
  );
  const op = await operationOf(db, task!.id);
  if (op.state === 'completed') {
    await expectEveryEffectOnce(db, w, task!);
    expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [task!.id])).toBe(1);
    expect((await createTask(services, w.actor, body)).kind).toBe('found_settled');
  } else {
    expect(await effectsOf(db, w, task!.id, task!.identifier)).toMatchObject({
      folder: false,
      branch: null,
      claims: 0,
      contributions: 0,
      sessions: 0,
    });
    expect((await createTask(services, w.actor, { ...body, attachments: [] })).kind).toBe('created');
  }
  // The identity is held by exactly one task (or none).
  expect(
    await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id = $2', [w.ws.id, ext]),
  ).toBeLessThanOrEqual(1);
}

// Each case is its own test, run concurrently. At most two children run at a time per dialect — on two cores the rest
// of the suite (run alongside) must not be starved into its own timeouts — but only the child holds a slot: while
// one case waits out the dead child's lease and its recovery, the next case's child runs.
const slots = { free: 2, waiting: [] as Array<() => void> };
async function withSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (slots.free === 0) await new Promise<void>((r) => slots.waiting.push(r));
  else slots.free--;
  try {
    return await fn();
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free++;
  }
}

describe.concurrent('crash matrix (SPEC §6)', () => {
  it.each(CASES.map((c) => ({ ...c, name: c.step === undefined ? c.failpoint : `${c.failpoint} at step ${c.step}` })))(
    'killed at $name, the runtime converges with each effect exactly once',
    (c) => crashAndConverge(c),
    // Includes the time queued for a slot.
    110_000,
  );
});

// SPEC §4.3, zero-step plans: Begin and Complete are one transaction, so there is nothing for recovery to converge —
// a process killed before COMMIT leaves nothing at all (not even a number: identifiers stay gapless), one killed after
// it leaves the settled task with its completed operation and its one event.
interface ZeroStepCase {
  failpoint: string;
  committed: boolean;
}
const ZERO_STEP_CASES: Array<ZeroStepCase & { name: string }> = [
  { failpoint: 'before_begin', committed: false },
  { failpoint: 'before_settled_commit', committed: false },
  { failpoint: 'after_complete', committed: true },
].map((c) => ({ ...c, name: c.failpoint }));

async function crashZeroStep(c: ZeroStepCase): Promise<void> {
  const plain = await makeWorkspace(db); // no working-folder root: a plain request plans nothing
  const actor = tokenActor([plain.id]);
  const ext = uniq('crash0-');
  const body = { workspace_id: plain.id, external_id: ext, title: 'zero-step' };
  const child = await withSlot(() => runChild(body, c.failpoint, ext, { workspaceId: plain.id }));
  expect(child.signal, `the child must die at ${c.failpoint}`).toBe('SIGKILL');
  const rows = async () => ({
    sequence: await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [plain.id]),
    tasks: await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [plain.id]),
    settled: await count(
      db,
      "SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND creation_state = 'completed' AND external_id_settled_at IS NOT NULL",
      [plain.id],
    ),
    operations: await count(
      db,
      "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state = 'completed'",
      [plain.id],
    ),
    open: await count(
      db,
      "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state <> 'completed'",
      [plain.id],
    ),
    revisions: await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE workspace_id = $1', [plain.id]),
    events: await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE workspace_id = $1 AND type = 'task.created'`, [
      plain.id,
    ]),
  });
  // One stored revision: revision 1 with its event (a zero-step create's revision 0 is rebuilt by readers).
  const one = { sequence: 1, tasks: 1, settled: 1, operations: 1, open: 0, revisions: 1, events: 1 };
  if (c.committed) {
    expect(await rows()).toEqual(one);
    expect((await createTask(services, actor, body)).kind).toBe('found_settled');
  } else {
    expect(await rows()).toEqual({
      sequence: 0,
      tasks: 0,
      settled: 0,
      operations: 0,
      open: 0,
      revisions: 0,
      events: 0,
    });
    const retry = await createTask(services, actor, body);
    expect(retry.kind).toBe('created');
    expect(retry.task.number).toBe(1);
  }
  expect(await rows()).toEqual(one);
}

describe.concurrent('crash matrix, zero-step creates (SPEC §4.3)', () => {
  it.each(ZERO_STEP_CASES)('killed at $name, a crash leaves nothing or everything', (c) => crashZeroStep(c), 110_000);
});
