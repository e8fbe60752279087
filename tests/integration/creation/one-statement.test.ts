// On PostgreSQL the creating request sends Begin, Complete phase A and phase B as one statement each
// (src/server/db/dialect/postgres/creation.ts, the PostgreSQL creation store). These tests hold that form to the
// transaction form it extends (src/server/db/repositories/creation-store.ts) — same rows, byte for byte — and prove
// its guards: a statement whose guard fails writes nothing at all. The product's services build the one-statement
// form; the transaction form is built here (./transaction-form.ts) to compare against.
import { PostgresCreationStore } from '../../../src/server/db/dialect/postgres/creation';
import { begin } from '../../../src/server/domain/creation/begin';
import type { CreationHandle } from '../../../src/server/domain/creation/operation';
import type { CreationPlan } from '../../../src/server/domain/creation/plan';
import { beginRows, settleRows } from '../../../src/server/domain/creation/rows';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { describe, expect, it as base } from '../../support/database-test';
import { freshDb, testDialect } from '../../support/db';
import { count, makeWorkspace, testServices, tokenActor, uniq } from '../../support/fixtures';
import { transactionFormServices } from './transaction-form';
import { footprint } from './footprint';
import { makeWorld } from './world';
import { EVENTS, eventsTable } from '../../support/events';

const NO_STEPS: CreationPlan = { startPolicy: 'none', steps: [], blockedBy: [] };

// Over the file's database: the same services with the store built in the transaction form (`general`), the
// one-statement store the product builds (`pg`), a workspace with a working-folder root, a repository and an agent
// profile (`w`), and helpers over them.
const it = base
  .extend('general', { scope: 'file' }, async ({ db }) => transactionFormServices(db))
  .extend('pg', { scope: 'file' }, async ({ services }) => services.store.creation as PostgresCreationStore)
  .extend('w', { scope: 'file' }, async ({ services }) => makeWorld(services))
  .extend(
    // Phase B in one statement for the creating request's own handle.
    'settleOne',
    { scope: 'file' },
    async ({ pg }) =>
      (h: CreationHandle) =>
        pg.settleInOneStatement(settleRows(h, h.begun!, crypto.randomUUID(), true, new Date().toISOString())),
  )
  .extend(
    // The same create through both forms: the footprint of each.
    'createBothWays',
    { scope: 'file' },
    async ({ db, services, general, w }) =>
      async (body: (ext: string) => Record<string, unknown>): Promise<[string, string]> => {
        const prints: string[] = [];
        for (const form of [services, general]) {
          const ext = uniq('both-');
          const outcome = await createTask(form, w.actor, body(ext));
          expect(outcome.kind).toBe('created');
          prints.push(await footprint(db, outcome.task.id));
        }
        return [prints[0]!, prints[1]!];
      },
  )
  .extend(
    // A create with no steps, begun and left there.
    'begun',
    { scope: 'file' },
    async ({ services, w }) =>
      async (): Promise<CreationHandle> => {
        const { handle } = await begin(services, w.actor, {
          workspaceId: w.ws.id,
          stepId: w.ws.steps[0]!.id,
          wipLimited: false,
          title: 'guarded',
          description: null,
          parentId: null,
          externalId: uniq('guard-'),
          plan: NO_STEPS,
        });
        return handle;
      },
  )
  .extend(
    'stateOf',
    { scope: 'file' },
    async ({ db }) =>
      async (taskId: string) =>
        (await db.one<{ creation_state: string; revision: number }>(
          'SELECT creation_state, revision FROM tasks WHERE id = $1',
          [taskId],
        ))!,
  );

describe.skipIf(testDialect() !== 'postgres')('one-statement Begin and Complete (PostgreSQL)', () => {
  it('services on PostgreSQL are built with the one-statement store', ({ services, general }) => {
    expect(services.store.creation).toBeInstanceOf(PostgresCreationStore);
    expect(general.store.creation).not.toBeInstanceOf(PostgresCreationStore);
  });

  it('a create with no steps writes the same rows as the transaction form', async ({ w, createBothWays }) => {
    const [one, general] = await createBothWays((ext) => ({
      workspace_id: w.ws.id,
      external_id: ext,
      title: 'Same "rows" \u00e9',
      description: 'd',
    }));
    expect(one).toContain('task.created');
    expect(one).toBe(general);
  });

  it('a create with planned steps (folder, session, launch intent) writes the same rows as the transaction form', async ({
    w,
    createBothWays,
  }) => {
    const [one, general] = await createBothWays((ext) => ({
      workspace_id: w.ws.id,
      external_id: ext,
      title: 'With steps',
      start_agent: true,
      agent_profile_id: w.profileId,
    }));
    expect(one).toContain('session_prepare');
    expect(one).toBe(general);
  });

  it('a create without an identity writes the same rows as the transaction form', async ({ w, createBothWays }) => {
    const [one, general] = await createBothWays(() => ({ workspace_id: w.ws.id, title: 'No identity' }));
    expect(one).not.toContain('external_id_settled_at":"<time>');
    expect(one).toBe(general);
  });

  it('a Created with nothing to prepare costs two statements: the lookup, then Begin and Complete as one (SPEC §4.3)', async () => {
    // A database of its own: the agent launches the earlier tests' creates started run on in the background, and their
    // statements would be counted here.
    const quiet = await freshDb();
    try {
      const quietServices = await testServices(quiet);
      const plain = await makeWorkspace(quiet); // no working-folder root: the plan has no steps
      const before = { ...quiet.stats };
      await createTask(quietServices, tokenActor([plain.id]), {
        workspace_id: plain.id,
        external_id: uniq('count-'),
        title: 't',
      });
      expect(quiet.stats.statements - before.statements).toBe(2);
      expect(quiet.stats.transactions - before.transactions).toBe(1);
    } finally {
      await quiet.close();
    }
  });

  it('Begin taken by an identity already held fails whole: no number, no operation, no revision', async ({
    db,
    pg,
    w,
    begun,
  }) => {
    const handle = await begun();
    const seq = await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [w.ws.id]);
    const ops = await count(db, 'SELECT COUNT(*) AS n FROM creation_operations');
    const revisions = await count(db, 'SELECT COUNT(*) AS n FROM task_revisions');
    const at = new Date().toISOString();
    const again = pg.beginInOneStatement(
      beginRows({
        operationId: crypto.randomUUID(),
        taskId: crypto.randomUUID(),
        tokenHash: 'x',
        actorId: w.actor.id,
        leaseOwner: 'test',
        leaseExpiresAt: at,
        at,
        requestId: null,
        workspaceId: w.ws.id,
        stepId: w.ws.steps[0]!.id,
        wipLimited: false,
        title: 'duplicate',
        description: null,
        parentId: null,
        externalId: handle.externalId,
        plan: NO_STEPS,
      }),
    );
    await expect(again).rejects.toMatchObject({ code: '23505', constraint: 'uniq_tasks_external_id' });
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [w.ws.id])).toBe(seq);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations')).toBe(ops);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM task_revisions')).toBe(revisions);
  });

  it('phase A whose fence no longer matches moves nothing (the task stays preparing)', async ({
    db,
    pg,
    begun,
    stateOf,
  }) => {
    const handle = await begun();
    await db.run('UPDATE creation_operations SET generation = 1 WHERE id = $1', [handle.operationId]);
    expect(await pg.enterCompletingInOneStatement(handle)).toBeUndefined();
    expect((await stateOf(handle.taskId)).creation_state).toBe('preparing');
    const mine = await begun();
    expect(await pg.enterCompletingInOneStatement(mine)).toBe(true);
    expect((await stateOf(mine.taskId)).creation_state).toBe('completing');
  });

  it('phase B whose fence no longer matches writes nothing: no settle, no revision 1, no event', async ({
    db,
    pg,
    settleOne,
    begun,
    stateOf,
  }) => {
    const handle = await begun();
    expect(await pg.enterCompletingInOneStatement(handle)).toBe(true);
    await db.run('UPDATE creation_operations SET generation = 1 WHERE id = $1', [handle.operationId]);
    expect(await settleOne(handle)).toBeUndefined();
    expect(await stateOf(handle.taskId)).toMatchObject({ creation_state: 'completing', revision: 0 });
    expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [handle.taskId])).toBe(0);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE task_id = $1', [handle.taskId])).toBe(1);
  });

  it('phase B for a task changed or released while preparing writes nothing (the general path decides)', async ({
    db,
    pg,
    settleOne,
    begun,
    stateOf,
  }) => {
    const changed = await begun();
    expect(await pg.enterCompletingInOneStatement(changed)).toBe(true);
    await db.run("UPDATE tasks SET title = 'edited', revision = revision + 1 WHERE id = $1", [changed.taskId]);
    expect(await settleOne(changed)).toBeUndefined();
    const released = await begun();
    expect(await pg.enterCompletingInOneStatement(released)).toBe(true);
    await db.run('UPDATE tasks SET external_id = NULL WHERE id = $1', [released.taskId]);
    expect(await settleOne(released)).toBeUndefined();
    for (const h of [changed, released]) {
      expect((await stateOf(h.taskId)).creation_state).toBe('completing');
      expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [h.taskId])).toBe(0);
    }
    const fine = await begun();
    expect(await pg.enterCompletingInOneStatement(fine)).toBe(true);
    expect(await settleOne(fine)).toBe(true);
    expect(await stateOf(fine.taskId)).toMatchObject({ creation_state: 'completed', revision: 1 });
  });

  describe('creates reaching the same step together share one statement', () => {
    it('twenty creates at once in one workspace get distinct, gapless numbers and cost far fewer statements', async ({
      db,
      services,
    }) => {
      const plain = await makeWorkspace(db);
      const actor = tokenActor([plain.id]);
      const before = db.stats.statements;
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          createTask(services, actor, { workspace_id: plain.id, external_id: `many-${i}`, title: `t${i}` }),
        ),
      );
      expect(outcomes.every((o) => o.kind === 'created')).toBe(true);
      expect(outcomes.map((o) => o.task.number).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      expect(db.stats.statements - before).toBeLessThan((5 * 20) / 2);
      expect(
        await count(
          db,
          "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state = 'completed'",
          [plain.id],
        ),
      ).toBe(20);
      // Revision 1 of each: a zero-step create stores no revision 0 (readers rebuild it).
      expect(await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE workspace_id = $1', [plain.id])).toBe(20);
      expect(
        await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE workspace_id = $1 AND type = 'task.created'`, [
          plain.id,
        ]),
      ).toBe(20);
      // Each task's events and rows are its own: identifier and title travel together.
      const mismatched = await count(
        db,
        `SELECT COUNT(*) AS n FROM tasks t JOIN ${eventsTable('e')} ON e.task_id = t.id
         WHERE t.workspace_id = $1 AND ((e.task::jsonb ->> 'identifier') <> t.identifier
           OR (e.task::jsonb ->> 'title') <> t.title)`,
        [plain.id],
      );
      expect(mismatched).toBe(0);
    });

    it('one identity asked twice in the same batch: one Created, one Found, and no number lost', async ({
      db,
      services,
    }) => {
      const plain = await makeWorkspace(db);
      const actor = tokenActor([plain.id]);
      const exts = ['a', 'b', 'twice', 'c', 'twice', 'd'];
      const outcomes = await Promise.all(
        exts.map((e) => createTask(services, actor, { workspace_id: plain.id, external_id: e, title: e })),
      );
      const twice = outcomes.filter((o) => o.task.externalId === 'twice');
      // The Found re-read may catch the winner before or after its Complete: settled or unsettled, never a second task.
      expect(twice.map((o) => o.kind).sort()).toEqual([
        'created',
        expect.stringMatching(/^found_(settled|unsettled)$/),
      ]);
      expect(twice[0]!.task.id).toBe(twice[1]!.task.id);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [plain.id])).toBe(5);
      expect(await count(db, 'SELECT MAX(number) AS n FROM tasks WHERE workspace_id = $1', [plain.id])).toBe(5);
      expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [plain.id])).toBe(5);
    });

    it('phase A for three handles at once, one of them fenced out: the other two move, it does not', async ({
      db,
      pg,
      begun,
      stateOf,
    }) => {
      const hs = [await begun(), await begun(), await begun()];
      await db.run('UPDATE creation_operations SET generation = 1 WHERE id = $1', [hs[1]!.operationId]);
      expect(await Promise.all(hs.map((h) => pg.enterCompletingInOneStatement(h)))).toEqual([true, undefined, true]);
      expect((await Promise.all(hs.map((h) => stateOf(h.taskId)))).map((s) => s.creation_state)).toEqual([
        'completing',
        'preparing',
        'completing',
      ]);
    });

    it('phase B for three handles at once, one of them fenced out: the other two settle with one event each, it writes nothing', async ({
      db,
      pg,
      settleOne,
      begun,
      stateOf,
    }) => {
      const hs = [await begun(), await begun(), await begun()];
      for (const h of hs) expect(await pg.enterCompletingInOneStatement(h)).toBe(true);
      await db.run('UPDATE creation_operations SET generation = 1 WHERE id = $1', [hs[1]!.operationId]);
      const out = await Promise.all(hs.map((h) => settleOne(h)));
      expect(out).toEqual([true, undefined, true]);
      const events = await Promise.all(
        hs.map((h) => count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [h.taskId])),
      );
      expect(events).toEqual([1, 0, 1]);
      expect((await stateOf(hs[1]!.taskId)).creation_state).toBe('completing');
    });
  });
});
