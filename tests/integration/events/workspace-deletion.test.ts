// SPEC §8: workspace deletion — tasks deleted through the task aggregate (events in order), in-flight creations
// aborted and compensated by the recovery runtime, release operations and revisions kept, every identity freed.
import { randomUUID } from 'node:crypto';
import { SYSTEM_ACTOR } from '../../../src/server/domain/access';
import { releaseExternalId } from '../../../src/server/domain/release/release-external-id';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { deleteWorkspace } from '../../../src/server/domain/workspaces/delete-workspace';
import { recoverOnce } from '../../../src/server/runtime/recovery';
import { count, makeWorkspace, tokenActor, uniq, until, userActor, withPlannedStep } from '../../support/fixtures';
import { describe, expect, it } from '../../support/database-test';
import { EVENTS } from '../../support/events';

describe('workspace deletion (SPEC §8)', () => {
  it('deletes every task in order with one task.deleted each, frees identities, keeps revisions and releases', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id], ['tasks:read', 'tasks:write', 'identities:release']);
    const exts = [uniq('a-'), uniq('b-')];
    const tasks = [];
    for (const ext of exts)
      tasks.push((await createTask(services, actor, { workspace_id: ws.id, external_id: ext, title: ext })).task);
    const key = randomUUID();
    const admin = userActor({}, true); // an instance admin: still authorized after the workspace is gone
    const released = await releaseExternalId(services, admin, {
      workspaceId: ws.id,
      rawExternalId: 'never-held',
      idempotencyKey: key,
      source: 'test',
    });
    expect(released.status).toBe(404);

    const result = await deleteWorkspace(services, userActor({ [ws.id]: 'admin' }), ws.id);
    expect(result).toMatchObject({ deleted_tasks: 2 });

    const events = await db.query<{ task_id: string; type: string; revision: unknown }>(
      `SELECT task_id, type, revision FROM ${EVENTS} WHERE workspace_id = $1 ORDER BY seq`,
      [ws.id],
    );
    expect(events.map((e) => [e.task_id, e.type, Number(e.revision)])).toEqual([
      [tasks[0]!.id, 'task.created', 1],
      [tasks[1]!.id, 'task.created', 1],
      [tasks[0]!.id, 'task.deleted', 2],
      [tasks[1]!.id, 'task.deleted', 2],
    ]);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [ws.id])).toBe(0);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(0);
    // Revisions 1 and 2 of each stored (a zero-step create's revision 0 is rebuilt by readers), and readable.
    expect(await count(db, 'SELECT COUNT(*) AS n FROM task_revisions WHERE workspace_id = $1', [ws.id])).toBe(4);
    for (const task of tasks)
      expect((await services.store.events.listRevisions(task.id)).map((r) => r.revision)).toEqual([0, 1, 2]);
    // SPEC §7: a release replay after deletion returns its stored result.
    const replay = await releaseExternalId(services, admin, {
      workspaceId: ws.id,
      rawExternalId: 'never-held',
      idempotencyKey: key,
      source: 'test',
    });
    expect(replay).toMatchObject({ status: 404, replayed: true });
  });

  it('an in-flight creation whose owner died is aborted by the recovery runtime, with no event', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id], ['tasks:read', 'tasks:write']);
    const ext = uniq('inflight-');
    services.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext, times: 1 });
    const pending = createTask(
      services,
      actor,
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'slow' }),
    );
    pending.catch(() => {});
    await until(() => (services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'paused after Begin');
    const op = await db.one<{ id: string; task_id: string }>(
      'SELECT id, task_id FROM creation_operations WHERE external_id = $1',
      [ext],
    );
    // The owner "died": its lease ran out.
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE id = $1', [
      op!.id,
      new Date(Date.now() - 60_000).toISOString(),
    ]);

    const result = await deleteWorkspace(services, SYSTEM_ACTOR, ws.id);
    expect(result).toMatchObject({ deleted_tasks: 1, aborting_operations: 1 });
    expect(
      (await db.one<{ state: string }>('SELECT state FROM creation_operations WHERE id = $1', [op!.id]))?.state,
    ).toBe('aborting');

    await recoverOnce(services);
    expect(
      (await db.one<{ state: string }>('SELECT state FROM creation_operations WHERE id = $1', [op!.id]))?.state,
    ).toBe('aborted');
    expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [op!.task_id])).toBe(0);
    services.failpoints.release('after_begin');
    await expect(pending).rejects.toBeTruthy();
  });

  it('an in-flight creation with a live owner aborts itself when Complete finds the task gone', async ({
    db,
    services,
  }) => {
    const ws = await makeWorkspace(db);
    const actor = tokenActor([ws.id], ['tasks:read', 'tasks:write']);
    const ext = uniq('live-');
    services.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext, times: 1 });
    const pending = createTask(
      services,
      actor,
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'slow' }),
    );
    pending.catch(() => {});
    await until(() => (services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'paused after Begin');
    await deleteWorkspace(services, SYSTEM_ACTOR, ws.id);
    services.failpoints.release('after_begin');
    await expect(pending).rejects.toMatchObject({ code: 'task_not_created' });
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM creation_operations WHERE external_id = $1 AND state = 'aborted'", [
        ext,
      ]),
    ).toBe(1);
  });

  it('is admin only: an operator gets the ordinary not-found and nothing is deleted', async ({ db, services }) => {
    const ws = await makeWorkspace(db);
    await expect(deleteWorkspace(services, userActor({ [ws.id]: 'operator' }), ws.id)).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(1);
  });
});
