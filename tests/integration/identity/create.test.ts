// Identity core at the domain level (SPEC §2–§4), on the dialect of the running project.
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { lookupTaskByExternalId } from '../../../src/server/domain/tasks/lookup-task';
import type { Db } from '../../../src/server/db/types';
import { describe, expect, it } from '../../support/database-test';
import { count, makeWorkspace, tokenActor, uniq, type TestWorkspace } from '../../support/fixtures';
import { EVENTS, taskEvents } from '../../support/events';

const actor = (ws: TestWorkspace) => tokenActor([ws.id]);
const snapshot = async (db: Db, id: string) => db.one('SELECT * FROM tasks WHERE id = $1', [id]);
const counts = async (db: Db, ws: TestWorkspace) => ({
  tasks: await count(db, 'SELECT COUNT(*) AS n FROM tasks'),
  revisions: await count(db, 'SELECT COUNT(*) AS n FROM task_revisions'),
  events: await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS}`),
  operations: await count(db, 'SELECT COUNT(*) AS n FROM creation_operations'),
  sequence: await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id]),
});

describe('create with an external id (SPEC §4.1)', () => {
  it('creates, then a retry finds the same task settled', async ({ services, ws }) => {
    const ext = uniq('ext-');
    const first = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'Hello' });
    expect(first.kind).toBe('created');
    expect(first.task.externalId).toBe(ext);
    expect(first.task.externalIdSettledAt).not.toBeNull();
    expect(first.task.identifier).toMatch(new RegExp(`^${ws.prefix}-\\d+$`));
    const again = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'Hello' });
    expect(again.kind).toBe('found_settled');
    expect(again.task.id).toBe(first.task.id);
  });

  it('Found has zero side effects and leaves the task byte-identical even when the title differs', async ({
    db,
    services,
    ws,
  }) => {
    const ext = uniq('ext-');
    const first = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'Original' });
    const before = await counts(db, ws);
    const row = await snapshot(db, first.task.id);
    const again = await createTask(services, actor(ws), {
      workspace_id: ws.id,
      external_id: ext,
      title: 'Drifted',
      description: 'x',
    });
    expect(again.kind).toBe('found_settled');
    expect(again.task.title).toBe('Original');
    expect(await counts(db, ws)).toEqual(before);
    expect(await snapshot(db, first.task.id)).toEqual(row);
  });

  it('a retry without a title still gets Found (title is enforced only after a miss, SPEC §4.1 step 6)', async ({
    services,
    ws,
  }) => {
    const ext = uniq('ext-');
    await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'T' });
    const again = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext });
    expect(again.kind).toBe('found_settled');
  });

  it('a miss without a title is a validation error and writes nothing', async ({ db, services, ws }) => {
    const before = await counts(db, ws);
    await expect(
      createTask(services, actor(ws), { workspace_id: ws.id, external_id: uniq('ext-') }),
    ).rejects.toMatchObject({
      code: 'title_required',
    });
    expect(await counts(db, ws)).toEqual(before);
  });

  it('"  ext  " finds "ext"; a blank id creates a task without identity; case is significant', async ({
    services,
    ws,
  }) => {
    const ext = uniq('ext-');
    const first = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'T' });
    const padded = await createTask(services, actor(ws), {
      workspace_id: ws.id,
      external_id: `\u00a0 ${ext}\u3000`,
      title: 'T',
    });
    expect(padded.task.id).toBe(first.task.id);
    const upper = await createTask(services, actor(ws), {
      workspace_id: ws.id,
      external_id: ext.toUpperCase(),
      title: 'T',
    });
    expect(upper.kind).toBe('created');
    const blank = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: '   ', title: 'T' });
    expect(blank.kind).toBe('created');
    expect(blank.task.externalId).toBeNull();
  });

  it('tasks without ids never collide', async ({ services, ws }) => {
    const a = await createTask(services, actor(ws), { workspace_id: ws.id, title: 'A' });
    const b = await createTask(services, actor(ws), { workspace_id: ws.id, title: 'A' });
    expect(a.kind).toBe('created');
    expect(b.kind).toBe('created');
    expect(a.task.id).not.toBe(b.task.id);
  });

  it('the same id in another workspace is a new task', async ({ db, services, ws }) => {
    const other = await makeWorkspace(db);
    const ext = uniq('ext-');
    const a = await createTask(services, tokenActor([ws.id, other.id]), {
      workspace_id: ws.id,
      external_id: ext,
      title: 'T',
    });
    const b = await createTask(services, tokenActor([ws.id, other.id]), {
      workspace_id: other.id,
      external_id: ext,
      title: 'T',
    });
    expect(b.kind).toBe('created');
    expect(b.task.id).not.toBe(a.task.id);
  });

  it('a subtask never inherits its parent identity, and resolves the parent workspace', async ({ services, ws }) => {
    const ext = uniq('ext-');
    const parent = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'P' });
    const child = await createTask(services, actor(ws), { parent_id: parent.task.id, title: 'C' });
    expect(child.kind).toBe('created');
    expect(child.task.workspaceId).toBe(ws.id);
    expect(child.task.parentId).toBe(parent.task.id);
    expect(child.task.externalId).toBeNull();
  });

  it('resolves a deleted parent workspace from retained history for a Found retry', async ({ db, services, ws }) => {
    const parent = await createTask(services, actor(ws), { workspace_id: ws.id, title: 'P' });
    const ext = uniq('ext-');
    const child = await createTask(services, actor(ws), { parent_id: parent.task.id, external_id: ext, title: 'C' });
    await db.run('DELETE FROM tasks WHERE id = $1', [parent.task.id]);
    const again = await createTask(services, actor(ws), { parent_id: parent.task.id, external_id: ext });
    expect(again.kind).toBe('found_settled');
    expect(again.task.id).toBe(child.task.id);
  });

  it('without workspace or parent → workspace_id is required', async ({ services, ws }) => {
    await expect(createTask(services, actor(ws), { external_id: 'x', title: 'T' })).rejects.toMatchObject({
      code: 'workspace_required',
    });
  });

  it('unauthorized create is 404 task not created, before identity validation', async ({ services, ws }) => {
    const stranger = tokenActor([]);
    await expect(
      createTask(services, stranger, { workspace_id: ws.id, external_id: 'x'.repeat(300), title: 'T' }),
    ).rejects.toMatchObject({
      code: 'task_not_created',
    });
  });

  it('shows revisions 0 and 1 and writes exactly one task.created event on Created', async ({ db, services, ws }) => {
    const created = await createTask(services, actor(ws), {
      workspace_id: ws.id,
      external_id: uniq('ext-'),
      title: 'T',
    });
    // As every reader sees them: a zero-step create stores revision 1 only, and its revision 0 is rebuilt from it.
    const revs = await services.store.events.listRevisions(created.task.id);
    expect(revs.map((r) => [r.revision, r.change])).toEqual([
      [0, 'begin'],
      [1, 'create'],
    ]);
    const events = await taskEvents(db, created.task.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.type).toBe('task.created');
    expect(events[0]!.task.external_id).toBe(created.task.externalId);
  });

  it('a primary-key collision is an error, never a Found (SPEC §2.2)', async ({ db, services, ws }) => {
    const existing = await createTask(services, actor(ws), { workspace_id: ws.id, title: 'T' });
    const before = await counts(db, ws);
    await expect(
      createTask(
        services,
        actor(ws),
        { workspace_id: ws.id, external_id: uniq('ext-'), title: 'T' },
        { taskId: existing.task.id },
      ),
    ).rejects.toThrow();
    expect(await counts(db, ws)).toEqual(before);
  });

  it('lookup returns the holder with creation_complete, and 404 on a miss', async ({ services, ws }) => {
    const ext = uniq('ext-');
    const created = await createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'T' });
    const found = await lookupTaskByExternalId(services, actor(ws), ws.id, ` ${ext} `);
    expect(found.task.id).toBe(created.task.id);
    expect(found.creationComplete).toBe(true);
    await expect(lookupTaskByExternalId(services, actor(ws), ws.id, uniq('nope-'))).rejects.toMatchObject({
      code: 'task_not_found',
    });
    await expect(lookupTaskByExternalId(services, actor(ws), ws.id, '  ')).rejects.toMatchObject({
      code: 'external_id_required',
    });
  });
});
