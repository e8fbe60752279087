// SPEC §4.4 "A database failure is never a permanent step failure": Tether loses its database (PostgreSQL: its
// connections terminated and refused, or a read-only node; SQLite: a full disk) while a create is paused at each
// phase — before Begin, after it, before and after each step kind's effect and record, between Complete's phases,
// after Complete, inside a zero-step create's one transaction. Then the database comes back. Whatever happened:
//   - the creating request answers its outcome or 503 `database unavailable` (never a 500, never a step error);
//   - no operation is aborted: recovery (SPEC §6) completes it, every effect exactly once, one `task.created` event;
//   - a caller told `deduplicated:true, creation_complete:false` for a task keeps that task: it ends up holding the id;
//   - a retry with the same external_id converges on the one task.
// The step kinds' own database work fails at `step_before_effect`, the recording of a step's state at
// `step_before_record` (the fault lands while the request is paused at the failpoint; its next statement meets it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import { toDomainError } from '../../../src/server/domain/errors/domain-error';
import type { CreateOutcome } from '../../../src/server/domain/creation/operation';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { startRecoveryRuntime, type StopRuntime } from '../../../src/server/runtime';
import type { Services } from '../../../src/server/services';
import { faultableDatabase, type FaultableDatabase, type FaultKind } from '../../support/database-fault';
import { testDialect } from '../../support/db';
import { count, makeWorkspace, testServices, tokenActor, uniq, until } from '../../support/fixtures';
import { EVENTS } from '../../support/events';
import { transactionFormServices } from './transaction-form';
import {
  dataDir,
  expectEveryEffectOnce,
  fullBody,
  makeWorld,
  operationOf,
  requestLeaseRunsOut,
  upload,
  type World,
} from './world';

const LEASE_MS = 600;
const STEP_KINDS = [
  'workspace_attachment',
  'attachment_claim',
  'fresh_branch',
  'remote_contribution',
  'session_prepare',
  'launch_intent',
];

let fault: FaultableDatabase;
let services: Services;
/** The same database through the transaction form of every create (on PostgreSQL: not the form it runs). */
let transactionForm: Services;
/** The same database with a longer lease: while a table's writes are held, the lease cannot be renewed. */
let longLease: Services;
let w: World;
let stop: StopRuntime;

beforeAll(async () => {
  fault = await faultableDatabase();
  const config = { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() };
  services = await testServices(fault.db, { leaseMs: LEASE_MS, config });
  transactionForm = await transactionFormServices(fault.db, { leaseMs: LEASE_MS, config });
  longLease = await testServices(fault.db, { leaseMs: 2_000, config });
  w = await makeWorld(services);
  stop = startRecoveryRuntime(services, { pollMs: 100 });
});
afterAll(async () => {
  await stop?.();
  await fault?.close();
});

type Settled = { outcome: CreateOutcome } | { error: unknown };

function settle(p: Promise<CreateOutcome>): Promise<Settled> {
  return p.then(
    (outcome) => ({ outcome }),
    (error: unknown) => ({ error }),
  );
}

/** The create's answer is its outcome or the 503 — never a 500, a step error or an abort's error. */
function expectOutcomeOr503(settled: Settled, where: string): CreateOutcome | undefined {
  if ('outcome' in settled) return settled.outcome;
  const domain = toDomainError(settled.error);
  expect(domain.code, `${where}: ${String(settled.error)}`).toBe('database_unavailable');
  expect(domain.http).toBe(503);
  expect(domain.body()).toEqual({ error: 'database unavailable' });
  expect(domain.headers?.['retry-after']).toBe('1');
  return undefined;
}

interface Staged {
  failpoint: string;
  match: string;
  body: Record<string, unknown>;
  actor: World['actor'];
  workspaceId: string;
  via?: Services;
  kind: FaultKind;
  /** The create has begun by the time it pauses: a concurrent caller then gets FoundUnsettled. */
  begun: boolean;
}

/**
 * Pauses a create at the failpoint, takes the database away, lets the create go on, gives the database back, and
 * returns what every caller saw: the creating request's answer, and the task a concurrent caller was told about.
 */
/** Starts the create and waits until it is paused at the failpoint; then a second caller asks for the same id. */
async function pauseCreate(s: Staged): Promise<{ via: Services; running: Promise<Settled>; told: string | undefined }> {
  const via = s.via ?? services;
  via.failpoints.arm({ name: s.failpoint, action: 'pause', match: s.match, times: 1 });
  const running = settle(createTask(via, s.actor, s.body));
  await until(() => (via.failpoints.paused.get(s.failpoint) ?? 0) > 0, 10_000, `the create to pause at ${s.failpoint}`);
  // A caller retrying now is told the unsettled holder (SPEC §3): the task that must end up holding the id.
  let told: string | undefined;
  if (s.begun) {
    const meanwhile = await createTask(services, s.actor, s.body);
    expect(meanwhile.kind).toBe(s.failpoint === 'after_complete' ? 'found_settled' : 'found_unsettled');
    told = meanwhile.task.id;
  }
  return { via, running, told };
}

async function loseDatabaseAt(s: Staged): Promise<{ first: CreateOutcome | undefined; told: string | undefined }> {
  await fault.prepare();
  const { via, running, told } = await pauseCreate(s);
  let settled: Settled;
  try {
    await fault.lose(s.kind);
    via.failpoints.release(s.failpoint);
    settled = await running;
  } finally {
    via.failpoints.release(s.failpoint);
    await fault.restore();
  }
  const first = expectOutcomeOr503(settled, `${s.failpoint} (${s.kind})`);
  // The fault met the request (its next write failed), unless nothing was left to write: after Complete, only the
  // asynchronous agent launch is.
  if (s.failpoint === 'after_complete') expect(first?.kind).toBe('created');
  else expect(first, `${s.failpoint}: the request's next write met the lost database`).toBeUndefined();
  return { first, told };
}

/** After the database is back: the retry converges and recovery completes the operation — never an abort. */
async function expectConverged(
  s: Staged,
  seen: { first: CreateOutcome | undefined; told: string | undefined },
  steps: boolean,
) {
  const ext = s.body.external_id as string;
  const retry = await createTask(services, s.actor, s.body);
  const holder = await fault.admin.one<{ id: string; identifier: string }>(
    'SELECT id, identifier FROM tasks WHERE workspace_id = $1 AND external_id = $2',
    [s.workspaceId, ext],
  );
  expect(holder, 'a task holds the identity').toBeDefined();
  expect(retry.task.id).toBe(holder!.id);
  // Every id a caller was given is the one that holds the identity.
  for (const id of [seen.first?.task.id, seen.told]) if (id) expect(id).toBe(holder!.id);
  if (seen.first || seen.told) expect(retry.kind).not.toBe('created');

  // The creating request has answered: what is left of its lease is only waiting.
  await requestLeaseRunsOut(fault.admin, holder!.id);
  // Generous: after several outages recovery's next pass waits out the lease its last pass held, and on a busy machine
  // (two cores, servers of other tests starting) that took longer than 15 s once. What is checked is convergence.
  await until(
    async () => (await operationOf(fault.admin, holder!.id)).state === 'completed',
    30_000,
    `${s.failpoint}: recovery completes the operation`,
  );
  expect(
    await count(
      fault.admin,
      "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state = 'aborted'",
      [s.workspaceId],
    ),
  ).toBe(0);
  expect(
    await count(fault.admin, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id = $2', [
      s.workspaceId,
      ext,
    ]),
  ).toBe(1);
  expect(
    await count(fault.admin, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1 AND type = 'task.created'`, [
      holder!.id,
    ]),
  ).toBe(1);
  expect((await createTask(services, s.actor, s.body)).kind).toBe('found_settled');
  if (steps) await expectEveryEffectOnce(fault.admin, w, holder!);
}

interface Case {
  failpoint: string;
  step?: number;
  kind: FaultKind;
}

const STEP_CASES: Case[] = [
  { failpoint: 'before_begin', kind: 'lost' },
  { failpoint: 'after_begin', kind: 'lost' },
  // Each step kind's own database work, and the recording of its state.
  ...STEP_KINDS.map((_, step) => ({ failpoint: 'step_before_effect', step, kind: 'lost' as const })),
  ...STEP_KINDS.map((_, step) => ({ failpoint: 'step_before_record', step, kind: 'lost' as const })),
  { failpoint: 'step_after_effect', step: 0, kind: 'lost' },
  { failpoint: 'step_after_record', step: STEP_KINDS.length - 1, kind: 'lost' },
  { failpoint: 'complete_between_phases', kind: 'lost' },
  // Complete is done; what fails is the dispatch of the agent launch, which must still happen exactly once.
  { failpoint: 'after_complete', kind: 'lost' },
];
// A failover to a node that refuses writes (PostgreSQL only: SQLite has no such node).
const READ_ONLY_CASES: Case[] = [
  'after_begin',
  'step_before_effect',
  'step_before_record',
  'complete_between_phases',
].map((failpoint) => ({
  failpoint,
  step: failpoint.startsWith('step_') ? 3 : undefined,
  kind: 'read-only',
}));

const name = (c: Case) =>
  `${c.failpoint}${c.step === undefined ? '' : ` at ${STEP_KINDS[c.step]}`}${c.kind === 'read-only' ? ' (read-only node)' : ''}`;

/** A create planning every step kind, to be paused at `c`'s failpoint (its step's, when it names one). */
async function stageFull(c: Case): Promise<Staged> {
  const ext = uniq('dbf-');
  return {
    failpoint: c.failpoint,
    match: c.step === undefined ? ext : `${ext}#${c.step}`,
    body: fullBody(w, ext, await upload(services, w)),
    actor: w.actor,
    workspaceId: w.ws.id,
    kind: c.kind,
    begun: c.failpoint !== 'before_begin',
  };
}

describe('a create with steps that loses its database (SPEC §4.4)', () => {
  const cases = [...STEP_CASES, ...(testDialect() === 'postgres' ? READ_ONLY_CASES : [])];
  it.each(cases.map((c) => ({ ...c, name: name(c) })))(
    '$name: 503 or the outcome, never an abort; recovery completes it',
    async (c) => {
      const staged = await stageFull(c);
      await expectConverged(staged, await loseDatabaseAt(staged), true);
    },
  );
});

describe('a zero-step create that loses its database (SPEC §4.3, §4.4)', () => {
  const forms = testDialect() === 'postgres' ? (['one statement', 'transaction'] as const) : (['transaction'] as const);
  const cases = forms.flatMap((form) =>
    ['before_begin', 'before_settled_commit', 'after_complete'].map((failpoint) => ({ form, failpoint })),
  );
  it.each(cases)('$failpoint ($form form): 503 or the outcome; a retry converges', async ({ form, failpoint }) => {
    const plain = await makeWorkspace(fault.db); // no working-folder root: a plain request plans nothing
    const actor = tokenActor([plain.id]);
    const ext = uniq('dbf0-');
    const staged: Staged = {
      failpoint,
      match: ext,
      body: { workspace_id: plain.id, external_id: ext, title: 'zero-step' },
      actor,
      workspaceId: plain.id,
      via: form === 'transaction' ? transactionForm : services,
      kind: 'lost',
      begun: false,
    };
    const seen = await loseDatabaseAt(staged);
    await expectConverged(staged, seen, false);
    // Nothing half-made: exactly one number was drawn, whatever the first attempt got to.
    expect(await count(fault.admin, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [plain.id])).toBe(1);
  });
});

// What the hostile run found: `pg_terminate_backend` on Tether's connection in the middle of a step's own statement
// made the step "fail", the create was aborted (REST 500 `a creation step failed; the create was aborted`), and a
// caller already told `deduplicated:true, creation_complete:false` for that task saw the id land on another task.
// Here only that one connection dies; every other statement and every new connection works — the abort could write.
interface KillCase {
  failpoint: string;
  step?: number;
  table: string;
  /** Needed where other writers of the table may be waiting as well (the lease renewal writes `creation_steps`). */
  statement?: RegExp;
  /** What the creating request answers: the 503, or — Complete retries an ambiguous commit itself — its outcome. */
  answer: 503 | 'created';
}
const KILL_CASES: KillCase[] = [
  { failpoint: 'before_begin', table: 'tasks', answer: 503 },
  {
    failpoint: 'step_before_effect',
    step: 0,
    table: 'creation_steps',
    statement: /UPDATE creation_steps SET evidence/,
    answer: 503,
  },
  { failpoint: 'step_before_effect', step: 1, table: 'attachments', answer: 503 },
  {
    failpoint: 'step_before_effect',
    step: 2,
    table: 'creation_steps',
    statement: /UPDATE creation_steps SET evidence/,
    answer: 503,
  },
  { failpoint: 'step_before_effect', step: 3, table: 'remote_contributions', answer: 503 },
  { failpoint: 'step_before_effect', step: 4, table: 'agent_sessions', answer: 503 },
  { failpoint: 'step_before_effect', step: 5, table: 'launch_intents', answer: 503 },
  {
    failpoint: 'step_before_record',
    step: 3,
    table: 'creation_steps',
    statement: /UPDATE creation_steps SET state/,
    answer: 503,
  },
  // Phase B's statement: it writes revision 1 with the `task.created` event.
  { failpoint: 'complete_between_phases', table: 'task_revisions', answer: 'created' },
];

async function killMidStatementAt(s: Staged, c: Pick<KillCase, 'table' | 'statement' | 'answer'>) {
  const { via, running, told } = await pauseCreate(s);
  await fault.killMidStatement!(c.table, c.statement, () => via.failpoints.release(s.failpoint));
  const first = expectOutcomeOr503(await running, `${s.failpoint}: connection killed mid-statement`);
  if (c.answer === 'created') expect(first?.kind).toBe('created');
  else expect(first, `${s.failpoint}: the killed statement's request answers 503`).toBeUndefined();
  return { first, told };
}

describe.runIf(testDialect() === 'postgres')(
  'a connection killed in the middle of a statement (pg_terminate_backend, SPEC §4.4)',
  () => {
    it.each(KILL_CASES.map((c) => ({ ...c, name: name({ ...c, kind: 'lost' }) })))(
      '$name: never an abort; the told task keeps the id',
      async (c) => {
        const staged = { ...(await stageFull({ ...c, kind: 'lost' })), via: longLease };
        await expectConverged(staged, await killMidStatementAt(staged, c), true);
      },
    );

    it("a zero-step create's one statement: 503, and a retry converges", async () => {
      const plain = await makeWorkspace(fault.db);
      const ext = uniq('kill0-');
      const staged: Staged = {
        failpoint: 'before_settled_commit',
        match: ext,
        body: { workspace_id: plain.id, external_id: ext, title: 'zero-step' },
        actor: tokenActor([plain.id]),
        workspaceId: plain.id,
        via: longLease,
        kind: 'lost',
        begun: false,
      };
      await expectConverged(staged, await killMidStatementAt(staged, { table: 'tasks', answer: 503 }), false);
      expect(await count(fault.admin, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [plain.id])).toBe(1);
    });
  },
);

// SPEC §6 and §4.4 together: recovery itself meets the database failure. A create is abandoned after Begin (its
// request failed at `after_begin`), recovery takes it over and, while it runs the remote-contribution step, loses the
// database. That pass must leave the operation for the next one — never abort it — and the next pass completes it.
describe('recovery that loses its database while it drives an operation (SPEC §6)', () => {
  it('leaves the operation for its next pass, which completes it with every effect once', async () => {
    const ext = uniq('rec-');
    const body = fullBody(w, ext, await upload(services, w));
    await fault.prepare();
    services.failpoints.arm({ name: 'after_begin', action: 'error', match: ext, times: 1 });
    await expect(createTask(services, w.actor, body)).rejects.toThrow('failpoint after_begin');
    const told = await createTask(services, w.actor, body);
    expect(told.kind).toBe('found_unsettled');
    // The runtime of this file takes the operation over once its lease runs out, and pauses before the step's effect.
    services.failpoints.arm({ name: 'step_before_effect', action: 'pause', match: `${ext}#3`, times: 1 });
    await until(
      () => (services.failpoints.paused.get('step_before_effect') ?? 0) > 0,
      10_000,
      'recovery to reach the step',
    );
    const go = () => services.failpoints.release('step_before_effect');
    if (fault.killMidStatement) {
      await fault.killMidStatement('remote_contributions', undefined, go);
    } else {
      await fault.lose();
      go();
      await new Promise((r) => setTimeout(r, 300)); // the pass meets the full disk
      await fault.restore();
    }
    await expectConverged(
      {
        failpoint: 'step_before_effect',
        match: `${ext}#3`,
        body,
        actor: w.actor,
        workspaceId: w.ws.id,
        kind: 'lost',
        begun: true,
      },
      { first: undefined, told: told.task.id },
      true,
    );
    // The step ran twice, but the attempt that met the lost database is taken back: one attempt, the one that made it.
    await until(
      async () => (await attemptsOf(told.task.id, 3)) === 1,
      10_000,
      'the cut-short attempt to be taken back',
    );
  });
});

/** How many attempts the task's operation counts for step `index`. */
async function attemptsOf(taskId: string, index: number): Promise<number> {
  const step = await fault.admin.one<{ attempts: unknown }>(
    'SELECT s.attempts FROM creation_steps s JOIN creation_operations o ON o.id = s.operation_id WHERE o.task_id = $1 AND s.step_index = $2',
    [taskId, index],
  );
  return Number(step?.attempts);
}

// A step's attempts bound how often recovery re-runs a step whose effect it cannot find; a database failure is not a
// step failure, so outages landing again and again on the same step never use that bound up (SPEC §4.4).
describe('outages that land on the same step again and again (SPEC §4.4)', () => {
  it('are not counted as its attempts: recovery completes the create, never an abort', async () => {
    const ext = uniq('again-');
    const body = fullBody(w, ext, await upload(services, w));
    const match = `${ext}#3`;
    const waitPaused = (what: string) =>
      until(() => (services.failpoints.paused.get('step_before_effect') ?? 0) > 0, 10_000, what);
    const outage = async () => {
      await fault.lose();
      services.failpoints.release('step_before_effect');
      await new Promise((r) => setTimeout(r, 300)); // the paused attempt meets the lost database
      await fault.restore();
    };
    await fault.prepare();
    // The creating request meets the first outage at the step...
    services.failpoints.arm({ name: 'step_before_effect', action: 'pause', match, times: 1 });
    const running = settle(createTask(services, w.actor, body));
    await waitPaused('the create to reach the step');
    await outage();
    expect(expectOutcomeOr503(await running, 'the creating request')).toBeUndefined();
    const told = await createTask(services, w.actor, body);
    expect(told.kind).toBe('found_unsettled');
    // ...and each of recovery's next three passes meets another one at the same step: four in all, past the bound of 3.
    for (let pass = 1; pass <= 3; pass++) {
      services.failpoints.arm({ name: 'step_before_effect', action: 'pause', match, times: 1 });
      await waitPaused(`recovery pass ${pass} to reach the step`);
      await outage();
    }
    await expectConverged(
      { failpoint: 'step_before_effect', match, body, actor: w.actor, workspaceId: w.ws.id, kind: 'lost', begun: true },
      { first: undefined, told: told.task.id },
      true,
    );
    await until(
      async () => (await attemptsOf(told.task.id, 3)) === 1,
      10_000,
      'every cut-short attempt to be taken back',
    );
  });
});

// SPEC §4.4: Abort (a step that really failed) meets the database while it compensates. The compensation did not
// fail — the database did — so it is not handed to cleanup as a failed compensation: Abort stops `aborting`, and
// recovery resumes it once the database is back, compensating that step itself.
describe('Abort that loses its database while it compensates (SPEC §4.4)', () => {
  it('stops `aborting`; recovery resumes it and compensates, nothing handed to cleanup', async () => {
    // The contribution step fails for good: another task already holds its URL (SPEC §5). The create aborts and
    // compensates the steps before it, the attachment claim among them (a database write).
    const url = `https://git.example/acme/app/pull/${uniq('')}`;
    expect(
      (
        await createTask(
          services,
          w.actor,
          fullBody(w, uniq('holder-'), await upload(services, w), { remote_contributions: [url] }),
        )
      ).kind,
    ).toBe('created');
    const ext = uniq('abort-');
    const body = fullBody(w, ext, await upload(services, w), { remote_contributions: [url] });
    await fault.prepare();
    longLease.failpoints.arm({ name: 'compensate', action: 'pause', match: `${ext}#1`, times: 1 });
    const running = settle(createTask(longLease, w.actor, body));
    await until(
      () => (longLease.failpoints.paused.get('compensate') ?? 0) > 0,
      10_000,
      'Abort to reach the attachment claim',
    );
    const go = () => longLease.failpoints.release('compensate');
    if (fault.killMidStatement) {
      await fault.killMidStatement('attachments', undefined, go);
    } else {
      await fault.lose();
      go();
      await new Promise((r) => setTimeout(r, 300));
      await fault.restore();
    }
    // The caller gets the step's own error (the abort is finished by recovery).
    const settled = await running;
    expect('error' in settled && toDomainError(settled.error).code).toBe('contribution_already_associated');

    const op = await fault.admin.one<{ id: string }>('SELECT id FROM creation_operations WHERE external_id = $1', [
      ext,
    ]);
    await until(
      async () =>
        (await fault.admin.one<{ state: string }>('SELECT state FROM creation_operations WHERE id = $1', [op!.id]))
          ?.state === 'aborted',
      15_000,
      'recovery to finish the abort',
    );
    const steps = await fault.admin.query<{
      step_index: number;
      compensation_state: string | null;
      compensation_attempts: unknown;
    }>(
      'SELECT step_index, compensation_state, compensation_attempts FROM creation_steps WHERE operation_id = $1 ORDER BY step_index',
      [op!.id],
    );
    const claim = steps.find((s) => Number(s.step_index) === 1)!;
    expect(claim.compensation_state).toBe('compensated');
    expect(claim.compensation_attempts).toBeNull();
    expect(steps.filter((s) => s.compensation_state === 'handed_to_cleanup')).toEqual([]);
    expect(
      await count(fault.admin, 'SELECT COUNT(*) AS n FROM attachments WHERE claim_operation_id = $1', [op!.id]),
    ).toBe(0);
    // The identity is free again: the next create (with a URL of its own) makes a new task.
    expect((await createTask(services, w.actor, fullBody(w, ext, await upload(services, w)))).kind).toBe('created');
  });
});
