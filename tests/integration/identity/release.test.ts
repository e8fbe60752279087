// Release, unsettled holders and lifecycle (SPEC §2.3, §4.3, §7, §8), on the dialect of the running project.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../src/server/domain/access';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { lookupTaskByExternalId } from '../../../src/server/domain/tasks/lookup-task';
import { releaseExternalId } from '../../../src/server/domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../../../src/server/domain/tasks/change-task';
import { describe, expect, it as base } from '../../support/database-test';
import { count, tokenActor, uniq, until, userActor, withPlannedStep } from '../../support/fixtures';
import { EVENTS, taskEvents } from '../../support/events';

// Who acts on the file's workspace (an operator releases, a token writes), a release by the operator unless told
// otherwise, and a create paused at a failpoint between its phases.
const it = base
  .extend(
    'writer',
    { scope: 'file' },
    async ({ ws }) =>
      () =>
        tokenActor([ws.id], ['tasks:read', 'tasks:write']),
  )
  .extend('operator', { scope: 'file' }, async ({ ws }) => userActor({ [ws.id]: 'operator' }))
  .extend(
    'release',
    { scope: 'file' },
    async ({ services, ws, operator }) =>
      (ext: string, key: string = randomUUID(), actor: Actor = operator) =>
        releaseExternalId(services, actor, {
          workspaceId: ws.id,
          rawExternalId: ext,
          idempotencyKey: key,
          source: 'test',
        }),
  )
  .extend(
    'pausedCreate',
    { scope: 'file' },
    async ({ services, ws, writer }) =>
      async (ext: string, point = 'after_begin') => {
        services.failpoints.arm({ name: point, action: 'pause', match: ext, times: 1 });
        const pending = createTask(
          services,
          writer(),
          withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'slow' }),
        );
        pending.catch(() => {});
        await until(() => (services.failpoints.paused.get(point) ?? 0) === 1, 10_000, `paused at ${point}`);
        // Wrapped: returning the promise itself from an async function would wait for it.
        return { pending };
      },
  );

describe('unsettled holders (SPEC §3, §4.3)', () => {
  it('lookup and create report creation_complete:false only with deduplicated:true, and retries change nothing', async ({
    db,
    services,
    ws,
    writer,
    pausedCreate,
  }) => {
    const ext = uniq('uns-');
    const { pending } = await pausedCreate(ext);
    const look = await lookupTaskByExternalId(services, writer(), ws.id, ext);
    expect(look.creationComplete).toBe(false);
    const before = await db.one('SELECT * FROM tasks WHERE external_id = $1', [ext]);
    for (let i = 0; i < 3; i++) {
      const r = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: `retry ${i}` });
      expect(r.kind).toBe('found_unsettled');
    }
    expect(await db.one('SELECT * FROM tasks WHERE external_id = $1', [ext])).toEqual(before);
    services.failpoints.release('after_begin');
    expect((await pending).kind).toBe('created');
    expect((await lookupTaskByExternalId(services, writer(), ws.id, ext)).creationComplete).toBe(true);
  });

  it('release during preparing → the create completes as CreatedIdentityLost, with no identity in its event', async ({
    db,
    services,
    ws,
    writer,
    release,
    pausedCreate,
  }) => {
    const ext = uniq('lost-');
    const { pending } = await pausedCreate(ext);
    expect((await release(ext)).status).toBe(204);
    services.failpoints.release('after_begin');
    const outcome = await pending;
    expect(outcome.kind).toBe('created_identity_lost');
    expect(outcome.task.externalId).toBeNull();
    const [ev] = await taskEvents(db, outcome.task.id);
    expect(ev!.task).not.toHaveProperty('external_id');
    await expect(lookupTaskByExternalId(services, writer(), ws.id, ext)).rejects.toMatchObject({
      code: 'task_not_found',
    });
  });

  it('delete during preparing → the create answers task not created', async ({
    db,
    services,
    writer,
    pausedCreate,
  }) => {
    const ext = uniq('del-');
    const { pending } = await pausedCreate(ext);
    const row = await db.one<{ id: string }>('SELECT id FROM tasks WHERE external_id = $1', [ext]);
    await deleteTask(services, writer(), row!.id);
    services.failpoints.release('after_begin');
    await expect(pending).rejects.toMatchObject({ code: 'task_not_created' });
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM creation_operations WHERE task_id = $1 AND state = 'aborted'", [
        row!.id,
      ]),
    ).toBe(1);
    expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [row!.id])).toBe(0);
  });

  it('release during completing → 409 creation_completing, nothing changes, nothing stored', async ({
    db,
    services,
    release,
    pausedCreate,
  }) => {
    const ext = uniq('cmp-');
    const { pending } = await pausedCreate(ext, 'complete_between_phases');
    const key = randomUUID();
    await expect(release(ext, key)).rejects.toMatchObject({ code: 'creation_completing' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM release_operations WHERE idempotency_key = $1', [key])).toBe(0);
    services.failpoints.release('complete_between_phases');
    expect((await pending).kind).toBe('created');
    // The same key can now be used for real: it was not stored as final.
    expect((await release(ext, key)).status).toBe(204);
  });
});

describe('release (SPEC §7)', () => {
  it('204 keeps the task with both columns NULL; lookup 404; the next create is a new task', async ({
    db,
    services,
    ws,
    writer,
    release,
  }) => {
    const ext = uniq('rel-');
    const created = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    const r = await release(ext);
    expect(r.status).toBe(204);
    const row = await db.one<{ external_id: unknown; external_id_settled_at: unknown; revision: unknown }>(
      'SELECT external_id, external_id_settled_at, revision FROM tasks WHERE id = $1',
      [created.task.id],
    );
    expect(row).toMatchObject({ external_id: null, external_id_settled_at: null });
    expect(Number(row!.revision)).toBe(2);
    const events = await db.query<{ type: string; revision: unknown }>(
      `SELECT type, revision FROM ${EVENTS} WHERE task_id = $1 ORDER BY seq`,
      [created.task.id],
    );
    expect(events.map((e) => [e.type, Number(e.revision)])).toEqual([
      ['task.created', 1],
      ['task.updated', 2],
    ]);
    await expect(lookupTaskByExternalId(services, writer(), ws.id, ext)).rejects.toMatchObject({
      code: 'task_not_found',
    });
    const again = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T2' });
    expect(again.kind).toBe('created');
    expect(again.task.id).not.toBe(created.task.id);
  });

  it('a replay with the same key after the identity was re-used does not release the new task', async ({
    services,
    ws,
    writer,
    release,
  }) => {
    const ext = uniq('rep-');
    await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    const key = randomUUID();
    expect((await release(ext, key)).status).toBe(204);
    const reused = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'new' });
    const replay = await release(ext, key);
    expect(replay).toMatchObject({ status: 204, replayed: true });
    const look = await lookupTaskByExternalId(services, writer(), ws.id, ext);
    expect(look.task.id).toBe(reused.task.id);
  });

  it('same key with another identity → 409 idempotency_key_conflict', async ({ release }) => {
    const key = randomUUID();
    await release(uniq('a-'), key);
    await expect(release(uniq('b-'), key)).rejects.toMatchObject({ code: 'idempotency_key_conflict' });
  });

  it('no holder → 404 stored and replayed', async ({ services, ws, writer, release }) => {
    const key = randomUUID();
    const ext = uniq('none-');
    expect((await release(ext, key)).status).toBe(404);
    await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(await release(ext, key)).toMatchObject({ status: 404, replayed: true });
  });

  it('missing or malformed key → 400; blank id → 400', async ({ release }) => {
    await expect(release('x', '')).rejects.toMatchObject({ code: 'idempotency_key_required' });
    await expect(release('x', 'not-a-uuid')).rejects.toMatchObject({ code: 'idempotency_key_invalid' });
    await expect(release('  ')).rejects.toMatchObject({ code: 'external_id_required' });
    await expect(release('a\u0000b')).rejects.toMatchObject({ code: 'invalid_external_id_control' });
  });

  it('unauthorized → 404 task not found and the identity stays held; a viewer cannot release', async ({
    services,
    ws,
    writer,
    release,
  }) => {
    const ext = uniq('deny-');
    await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    await expect(release(ext, randomUUID(), tokenActor([]))).rejects.toMatchObject({ code: 'task_not_found' });
    await expect(release(ext, randomUUID(), userActor({ [ws.id]: 'viewer' }))).rejects.toMatchObject({
      code: 'task_not_found',
    });
    await expect(release(ext, randomUUID(), writer())).rejects.toMatchObject({ code: 'task_not_found' });
    expect((await lookupTaskByExternalId(services, writer(), ws.id, ext)).task.externalId).toBe(ext);
  });

  it('a token with identities:release may release', async ({ services, ws, writer, release }) => {
    const ext = uniq('tok-');
    await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    expect((await release(ext, randomUUID(), tokenActor([ws.id], ['identities:release']))).status).toBe(204);
  });
});

describe('lifecycle keeps or frees the identity (SPEC §2.3, §8)', () => {
  it('archived task keeps its identity and is found still archived', async ({ services, ws, writer }) => {
    const ext = uniq('arc-');
    const created = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    await setArchived(services, writer(), created.task.id, true);
    const again = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(again.kind).toBe('found_settled');
    expect(again.task.archivedAt).not.toBeNull();
  });

  it('delete frees the identity and writes a final task.deleted event', async ({ db, services, ws, writer }) => {
    const ext = uniq('del-');
    const created = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    await deleteTask(services, writer(), created.task.id);
    const ev = await db.query<{ type: string; revision: unknown }>(
      `SELECT type, revision FROM ${EVENTS} WHERE task_id = $1 ORDER BY seq`,
      [created.task.id],
    );
    expect(ev.map((e) => [e.type, Number(e.revision)])).toEqual([
      ['task.created', 1],
      ['task.deleted', 2],
    ]);
    const again = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(again.kind).toBe('created');
  });

  it('update with external_id changes nothing about the identity but still applies the title', async ({
    services,
    ws,
    writer,
  }) => {
    const ext = uniq('upd-');
    const created = await createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'Before' });
    const updated = await updateTask(services, writer(), created.task.id, { title: 'After', external_id: 'hijack' });
    expect(updated.title).toBe('After');
    expect(updated.externalId).toBe(ext);
    expect(updated.revision).toBe(2);
  });
});
