// Concurrency is settled by the database (SPEC §2.2, §4.1 steps 7–8), on the dialect of the running project.
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { count, makeWorkspace, tokenActor, uniq, until, withPlannedStep } from '../../support/fixtures';
import { describe, expect, it } from '../../support/database-test';
import { EVENTS } from '../../support/events';

describe('races', () => {
  it('50 simultaneous creates of one identity → one task, one Created, 49 Found, sequence +1', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id]);
    const ext = uniq('race-');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: `T${i}` }),
      ),
    );
    const kinds = results.map((r) => r.kind);
    expect(kinds.filter((k) => k === 'created')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'found_settled' || k === 'found_unsettled')).toHaveLength(49);
    expect(new Set(results.map((r) => r.task.id)).size).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [ws.id])).toBe(1);
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1', [ws.id])).toBe(1);
  });

  // SPEC §4.3: a zero-step plan commits Begin and Complete as one transaction; a planned step keeps the two phases.
  it.for([
    {
      plan: 'zero-step (one commit)',
      // Revision 1 only: a zero-step create stores no revision 0 (readers rebuild it).
      storedRevisions: 1,
      body: (ws: string, ext: string, i: number) => ({ workspace_id: ws, external_id: ext, title: `T${i}` }),
    },
    {
      plan: 'with a planned step (two phases)',
      storedRevisions: 2,
      body: (ws: string, ext: string, i: number) =>
        withPlannedStep({ workspace_id: ws, external_id: ext, title: `T${i}` }),
    },
  ])(
    '64 simultaneous creates of one identity, $plan → one task, settled, one event, sequence +1',
    async ({ body, storedRevisions }, { db, services }) => {
      const ws = await makeWorkspace(db);
      const actor = tokenActor([ws.id]);
      const ext = uniq('race64-');
      const results = await Promise.all(
        Array.from({ length: 64 }, (_, i) => createTask(services, actor, body(ws.id, ext, i))),
      );
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'found_settled' || r.kind === 'found_unsettled')).toHaveLength(63);
      expect(new Set(results.map((r) => r.task.id)).size).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [ws.id])).toBe(1);
      expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
      expect(
        await count(
          db,
          "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state = 'completed'",
          [ws.id],
        ),
      ).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1', [ws.id])).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE workspace_id = $1', [ws.id])).toBe(
        storedRevisions,
      );
      const revisions = await services.store.events.listRevisions(results[0]!.task.id);
      expect(revisions.map((r) => [r.revision, r.change])).toEqual([
        [0, 'begin'],
        [1, 'create'],
      ]);
      expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE workspace_id = $1`, [ws.id])).toBe(1);
    },
  );

  it('identifiers stay gapless when losers roll back (SPEC §4.1 step 7)', async ({ db, services }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id]);
    for (let round = 0; round < 5; round++) {
      const ext = uniq('gap-');
      await Promise.all(
        Array.from({ length: 8 }, () =>
          createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'T' }),
        ),
      );
    }
    const numbers = (
      await db.query<{ number: unknown }>('SELECT number FROM tasks WHERE workspace_id = $1 ORDER BY number', [ws.id])
    ).map((r) => Number(r.number));
    expect(numbers).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('WIP admission (SPEC §4.1 steps 5, 7, 8)', () => {
  it('Found beats a full step', async ({ db, services }) => {
    const ws = await makeWorkspace(db, { steps: [{ name: 'Todo', wipLimit: 1 }] });
    const actor = tokenActor([ws.id]);
    const ext = uniq('wip-');
    const first = await createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'T' });
    const again = await createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(again.kind).toBe('found_settled');
    expect(again.task.id).toBe(first.task.id);
  });

  it('a lone create against a full step gets the capacity error and writes nothing', async ({ db, services }) => {
    const ws = await makeWorkspace(db, { steps: [{ name: 'Todo', wipLimit: 1 }] });
    const actor = tokenActor([ws.id]);
    await createTask(services, actor, { workspace_id: ws.id, title: 'fills it' });
    await expect(
      createTask(services, actor, { workspace_id: ws.id, external_id: uniq('wip-'), title: 'T' }),
    ).rejects.toMatchObject({
      code: 'wip_limit_exceeded',
    });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [ws.id])).toBe(1);
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
  });

  it('two creates racing for the last slot with one identity → one Created, one Found (real race)', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db, { steps: [{ name: 'Todo', wipLimit: 1 }] });
    const actor = tokenActor([ws.id]);
    const ext = uniq('wip-');
    const results = await Promise.all(
      [1, 2].map(() => createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'T' })),
    );
    const kinds = results.map((r) => r.kind);
    expect(kinds.filter((k) => k === 'created')).toHaveLength(1);
    expect(kinds.filter((k) => k.startsWith('found_'))).toHaveLength(1);
    expect(results[0]!.task.id).toBe(results[1]!.task.id);
  });

  it('the WIP loser re-reads before surfacing the error (deterministic via failpoint)', async ({ db, services }) => {
    // B misses the lookup, then A commits and takes the last slot while B is validating; B's Begin hits the WIP
    // limit, re-reads and returns A's task (SPEC §4.1 step 8).
    const ws = await makeWorkspace(db, { steps: [{ name: 'Todo', wipLimit: 1 }] });
    const actor = tokenActor([ws.id]);
    const ext = uniq('wip-');
    services.failpoints.arm({ name: 'before_begin', action: 'pause', match: ext, times: 1 });
    const b = createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'B' });
    await until(() => (services.failpoints.paused.get('before_begin') ?? 0) === 1, 10_000, 'B paused before Begin');
    const a = await createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'A' });
    expect(a.kind).toBe('created');
    services.failpoints.release('before_begin');
    const rb = await b;
    expect(rb.kind).toBe('found_settled');
    expect(rb.task.id).toBe(a.task.id);
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
  });

  it('the identity-index loser rolls back its sequence number and returns Found (deterministic via failpoint)', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id]);
    const ext = uniq('uv-');
    services.failpoints.arm({ name: 'before_begin', action: 'pause', match: ext, times: 1 });
    const b = createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'B' });
    await until(() => (services.failpoints.paused.get('before_begin') ?? 0) === 1, 10_000, 'B paused before Begin');
    const a = await createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: 'A' });
    services.failpoints.release('before_begin');
    const rb = await b;
    expect(rb.kind).toBe('found_settled');
    expect(rb.task.id).toBe(a.task.id);
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1', [ws.id])).toBe(1);
  });
});
