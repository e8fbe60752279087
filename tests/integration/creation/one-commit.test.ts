// SPEC §4.3, last bullet: a zero-step plan commits Begin and Complete as ONE transaction — the task inserted
// settled and `completed`, its operation `completed`, revisions 0 and 1 and the one `task.created` event — exactly the
// rows the two-phase path (Begin, phase A, phase B) writes for the same request, stored compactly (SPEC §9: no
// revision 0, which readers rebuild; the operation a compact record, no token, no empty plan) and read the same by
// every reader. Run on the dialect of the project and,
// on PostgreSQL, with both creation stores (the one-statement form and the transaction form), each chosen the way a
// deployment chooses it: through the configuration its services are built with.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import type { Db } from '../../../src/server/db/types';
import { createAgentProfile } from '../../../src/server/domain/agents/profiles';
import { begin } from '../../../src/server/domain/creation/begin';
import { buildPlan } from '../../../src/server/domain/creation/build-plan';
import { complete } from '../../../src/server/domain/creation/complete';
import { normalizeExternalId } from '../../../src/server/domain/identity/normalize';
import { parseFields } from '../../../src/server/domain/tasks/create-input';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { lookupTaskByExternalId } from '../../../src/server/domain/tasks/lookup-task';
import { validateCreate } from '../../../src/server/domain/tasks/validate-create';
import type { Services } from '../../../src/server/services';
import { freshDb, testDialect } from '../../support/db';
import {
  count,
  makeWorkspace,
  testServices,
  tokenActor,
  uniq,
  until,
  type TestWorkspace,
} from '../../support/fixtures';
import { transactionFormServices } from './transaction-form';
import { asCompactStorage, footprint, readersView } from './footprint';
import { EVENTS } from '../../support/events';

const pg = testDialect() === 'postgres';
let db: Db;
let forms: Array<{ form: string; services: Services }>;
let ws: TestWorkspace;
let parentId: string;
let blockerId: string;
let profileId: string;
let writer: ReturnType<typeof tokenActor>;
const actor = () => writer;

beforeAll(async () => {
  db = await freshDb();
  forms = [{ form: pg ? 'one-statement store' : 'transaction form', services: await testServices(db) }];
  if (pg) {
    const general = await transactionFormServices(db);
    forms.push({ form: 'transaction form', services: general });
  }
  ws = await makeWorkspace(db); // no working-folder root: a plain request plans nothing
  writer = tokenActor([ws.id]);
  const services = forms[0]!.services;
  parentId = (await createTask(services, actor(), { workspace_id: ws.id, title: 'parent' })).task.id;
  blockerId = (await createTask(services, actor(), { workspace_id: ws.id, title: 'blocker' })).task.id;
  profileId = (await createAgentProfile(services.store, { workspaceId: ws.id, name: uniq('agent') })).id;
});
afterAll(async () => {
  await db?.close();
});

const stateOf = async () => ({
  sequence: await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id]),
  tasks: await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [ws.id]),
  operations: await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1', [ws.id]),
  revisions: await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE workspace_id = $1', [ws.id]),
  events: await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE workspace_id = $1`, [ws.id]),
});

/** The same request through the two-phase protocol: validation, plan, Begin, then Complete's two phases. */
async function createTwoPhase(services: Services, body: Record<string, unknown>): Promise<string> {
  const fields = parseFields(body);
  const parent = typeof body.parent_id === 'string' ? body.parent_id : null;
  const target = await validateCreate(services.store, ws.id, parent, fields);
  const plan = await buildPlan(services, ws.id, fields, target.rootPath);
  expect(plan.steps).toEqual([]);
  const { handle } = await begin(services, actor(), {
    workspaceId: ws.id,
    stepId: target.stepId,
    wipLimited: target.wipLimited,
    title: fields.title,
    description: fields.description ?? null,
    parentId: parent,
    externalId: normalizeExternalId(body.external_id) ?? null,
    plan,
  });
  expect((await complete(services, handle)).kind).toBe('created');
  return handle.taskId;
}

const BODIES: Array<{ name: string; body: () => Record<string, unknown> }> = [
  {
    name: 'an identity, a title and a description',
    body: () => ({ external_id: uniq('same-'), title: 'Same "rows" \u00e9', description: 'd\n"q"' }),
  },
  { name: 'no identity', body: () => ({ title: 'No identity' }) },
  {
    name: 'a named step and a parent',
    body: () => ({ external_id: uniq('step-'), title: 'Child', step_id: ws.steps[1]!.id, parent_id: parentId }),
  },
  {
    name: 'an agent profile and no start (validated first)',
    body: () => ({ external_id: uniq('prof-'), title: 'Profiled', agent_profile_id: profileId }),
  },
  {
    name: 'a deferred start (its intent written with the completion)',
    body: () => ({
      external_id: uniq('def-'),
      title: 'Deferred',
      start_agent: true,
      blocked_by: [blockerId],
      agent_profile_id: profileId,
    }),
  },
];

describe('zero-step creates commit Begin and Complete as one transaction (SPEC §4.3)', () => {
  const FORMS = pg ? ['one-statement store', 'transaction form'] : ['transaction form'];
  describe.each(FORMS)('%s', (name) => {
    const form = () => forms.find((f) => f.form === name)!;

    it.each(BODIES)('writes exactly the rows of the two-phase path: $name', async ({ body }) => {
      const { services } = form();
      const one = await createTask(services, actor(), { workspace_id: ws.id, ...body() });
      expect(one.kind).toBe('created');
      expect(one.task).toMatchObject({ creationState: 'completed', revision: 1 });
      const two = await createTwoPhase(services, { workspace_id: ws.id, ...body() });
      const [a, b] = [await footprint(db, one.task.id), await footprint(db, two)];
      expect(a).toContain('"state":"completed"');
      expect(a).toContain('task.created');
      // SPEC §9: the zero-step operation is a compact record (no token; no plan when it is the empty one) and its
      // revision 0 is not stored; every other row and value is the two-phase path's.
      expect(a).toContain('"token_hash":null');
      expect(b).not.toContain('"token_hash":null');
      expect(b).toContain('"revision":0,');
      expect(a).not.toContain('"revision":0,');
      expect(a).toBe(asCompactStorage(b));
      // ...and every reader sees the same: revision 0 rebuilt exactly as the two-phase path stores it.
      const [seenA, seenB] = [await readersView(services, db, one.task.id), await readersView(services, db, two)];
      expect(seenA).toContain('"change":"begin"');
      expect(seenA).toBe(seenB);
      // A deferred start's intent waits for its blockers, written with the completion like the two-phase path's.
      const intents = await db.query<{ state: string }>('SELECT state FROM launch_intents WHERE task_id = $1', [
        one.task.id,
      ]);
      expect(intents.map((i) => i.state)).toEqual(a.includes('"kind":"deferred"') ? ['waiting'] : []);
    });

    it('a plain Created costs one commit: two statements on PostgreSQL’s one-statement store, five in a transaction', async () => {
      const { services } = form();
      const before = { ...db.stats };
      await createTask(services, actor(), { workspace_id: ws.id, external_id: uniq('count-'), title: 't' });
      expect(db.stats.transactions - before.transactions).toBe(1);
      // lookup + the one statement; or lookup + number, task, revision 1 with its event, operation in one transaction.
      expect(db.stats.statements - before.statements).toBe(name === 'one-statement store' ? 2 : 5);
    });

    it('a failure before COMMIT leaves nothing behind, and the number is not lost', async () => {
      const { services } = form();
      const ext = uniq('fail-');
      const before = await stateOf();
      services.failpoints.arm({ name: 'before_settled_commit', action: 'error', match: ext, times: 1 });
      await expect(
        createTask(services, actor(), { workspace_id: ws.id, external_id: ext, title: 't' }),
      ).rejects.toThrow(/failpoint/);
      expect(await stateOf()).toEqual(before);
      const retry = await createTask(services, actor(), { workspace_id: ws.id, external_id: ext, title: 't' });
      expect(retry.kind).toBe('created');
      expect(retry.task.number).toBe(before.sequence + 1);
    });

    it('readers never see the task before it is settled', async () => {
      const { services } = form();
      const ext = uniq('paused-');
      const other = openDb(db.url); // another connection: this one may hold SQLite's writer
      try {
        services.failpoints.arm({ name: 'before_settled_commit', action: 'pause', match: ext, times: 1 });
        const pending = createTask(services, actor(), { workspace_id: ws.id, external_id: ext, title: 't' });
        await until(
          () => (services.failpoints.paused.get('before_settled_commit') ?? 0) === 1,
          10_000,
          'paused before COMMIT',
        );
        expect(
          await other.one('SELECT id FROM tasks WHERE workspace_id = $1 AND external_id = $2', [ws.id, ext]),
        ).toBeUndefined();
        services.failpoints.release('before_settled_commit');
        const created = await pending;
        expect(created.kind).toBe('created');
        const seen = await lookupTaskByExternalId(services, actor(), ws.id, ext);
        expect(seen.creationComplete).toBe(true);
        expect(seen.task.externalIdSettledAt).not.toBeNull();
      } finally {
        await other.close();
      }
    });

    it('validation happens inside the transaction: a bad parent, step or workspace gets its error and writes nothing', async () => {
      const { services } = form();
      const before = await stateOf();
      const create = (body: Record<string, unknown>) =>
        createTask(services, actor(), { workspace_id: ws.id, external_id: uniq('bad-'), title: 't', ...body });
      await expect(create({ parent_id: 'no-such-task' })).rejects.toMatchObject({
        code: 'validation_failed',
        detail: expect.stringMatching(/^parent_id/),
      });
      await expect(create({ step_id: 'no-such-step' })).rejects.toMatchObject({
        code: 'validation_failed',
        detail: expect.stringMatching(/^step_id/),
      });
      const elsewhere = await makeWorkspace(db);
      await expect(create({ step_id: elsewhere.steps[0]!.id })).rejects.toMatchObject({ code: 'validation_failed' });
      const missing = crypto.randomUUID();
      await expect(
        createTask(services, tokenActor([missing]), { workspace_id: missing, external_id: uniq('x-'), title: 't' }),
      ).rejects.toMatchObject({
        code: 'task_not_created',
      });
      expect(await stateOf()).toEqual(before);
    });

    it('a full step refuses the create whole (WIP admission inside the transaction)', async () => {
      const { services } = form();
      const small = await makeWorkspace(db, { steps: [{ name: 'Todo', wipLimit: 2 }] });
      const create = () =>
        createTask(services, tokenActor([small.id]), { workspace_id: small.id, external_id: uniq('wip-'), title: 't' });
      expect((await create()).kind).toBe('created');
      expect((await create()).kind).toBe('created');
      await expect(create()).rejects.toMatchObject({ code: 'wip_limit_exceeded' });
      expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [small.id])).toBe(2);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1', [small.id])).toBe(
        2,
      );
    });

    it('a workspace with a working-folder root plans its folder: the two-phase protocol, with its step', async () => {
      const { services } = form();
      const rooted = await makeWorkspace(db, { rootPath: join(tmpdir(), uniq('tether-root-')) });
      const created = await createTask(services, tokenActor([rooted.id]), {
        workspace_id: rooted.id,
        external_id: uniq('root-'),
        title: 't',
      });
      expect(created.kind).toBe('created');
      const op = await db.one<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = $1', [
        created.task.id,
      ]);
      expect(await db.query('SELECT kind, state FROM creation_steps WHERE operation_id = $1', [op!.id])).toEqual([
        { kind: 'workspace_attachment', state: 'succeeded' },
      ]);
    });
  });

  it('a create with a planned step keeps the two-phase protocol: between the phases it is unsettled', async () => {
    const { services } = forms[0]!;
    const ext = uniq('steps-');
    services.failpoints.arm({ name: 'complete_between_phases', action: 'pause', match: ext, times: 1 });
    const body = {
      workspace_id: ws.id,
      external_id: ext,
      title: 't',
      remote_contributions: [`https://git.example/acme/app/pull/${uniq('')}`],
    };
    const pending = createTask(services, actor(), body);
    await until(
      () => (services.failpoints.paused.get('complete_between_phases') ?? 0) === 1,
      10_000,
      'paused between the phases',
    );
    expect((await lookupTaskByExternalId(services, actor(), ws.id, ext)).creationComplete).toBe(false);
    expect((await createTask(services, actor(), body)).kind).toBe('found_unsettled');
    services.failpoints.release('complete_between_phases');
    expect((await pending).kind).toBe('created');
    expect((await createTask(services, actor(), body)).kind).toBe('found_settled');
  });
});
