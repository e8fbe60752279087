// SPEC §8–§9: the exact events and revisions each lifecycle change writes, on the dialect of the running project.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/server/db/types';
import type { Services } from '../../../src/server/services';
import { eventPayload } from '../../../src/server/model/events';
import { listEvents, listRevisions } from '../../../src/server/domain/events/history';
import { releaseExternalId } from '../../../src/server/domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../../../src/server/domain/tasks/change-task';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { describe, expect, it as base } from '../../support/database-test';
import { makeWorkspace, tokenActor, uniq, until, userActor, withPlannedStep } from '../../support/fixtures';
import { taskEvents } from '../../support/events';

// The file's workspace seen by a writer that may also release, and the two changes most tests start from.
const it = base
  .extend(
    'writer',
    { scope: 'file' },
    async ({ ws }) =>
      () =>
        tokenActor([ws.id], ['tasks:read', 'tasks:write', 'identities:release']),
  )
  .extend(
    'create',
    { scope: 'file' },
    async ({ services, ws, writer }) =>
      (ext?: string) =>
        createTask(services, writer(), { workspace_id: ws.id, external_id: ext, title: 'Sequenced' }),
  )
  .extend(
    'release',
    { scope: 'file' },
    async ({ services, ws, writer }) =>
      (ext: string) =>
        releaseExternalId(services, writer(), {
          workspaceId: ws.id,
          rawExternalId: ext,
          idempotencyKey: randomUUID(),
          source: 'test',
        }),
  );

interface Ev {
  type: string;
  revision: number;
  external_id: string | undefined;
  archived: boolean;
}

/** The task's events in seq order, reduced to what each test asserts. */
async function eventsOf(db: Db, taskId: string): Promise<Ev[]> {
  return (await taskEvents(db, taskId)).map((p) => {
    return {
      type: p.type,
      revision: p.revision,
      external_id: p.task.external_id,
      archived: p.task.archived_at !== null,
    };
  });
}

/** A task's revision numbers as every reader sees them (a zero-step create stores no revision 0; readers rebuild it). */
async function revisionsOf(services: Services, taskId: string): Promise<number[]> {
  return (await services.store.events.listRevisions(taskId)).map((r) => r.revision);
}

describe('event sequences (SPEC §9)', () => {
  it('create writes exactly one task.created at revision 1 carrying the identity; Begin writes none', async ({
    db,
    services,
    create,
  }) => {
    const ext = uniq('c-');
    const out = await create(ext);
    expect(await eventsOf(db, out.task.id)).toEqual([
      { type: 'task.created', revision: 1, external_id: ext, archived: false },
    ]);
    expect(await revisionsOf(services, out.task.id)).toEqual([0, 1]);
  });

  it('each event is delivered as the JSON text the outbox always stored: the payload of the task as committed', async ({
    db,
    services,
    writer,
    create,
  }) => {
    const out = await create(uniq('t-'));
    const updated = await updateTask(services, writer(), out.task.id, { title: 'Renamed "é" \u2028' });
    const deleted = { ...updated, revision: updated.revision + 1 };
    await deleteTask(services, writer(), out.task.id);
    const events = await taskEvents(db, out.task.id);
    const committed = [out.task, updated, deleted];
    expect(events.map(({ seq: _seq, ...payload }) => JSON.stringify(payload))).toEqual(
      events.map((e, i) =>
        JSON.stringify(
          eventPayload({
            id: e.id,
            type: e.type,
            task: { ...committed[i]!, updatedAt: e.occurred_at },
            at: e.occurred_at,
          }),
        ),
      ),
    );
  });

  it('a retry of the same identity writes no event and no revision', async ({ db, services, ws, writer, create }) => {
    const ext = uniq('r-');
    const first = await create(ext);
    const again = await createTask(services, writer(), {
      workspace_id: ws.id,
      external_id: ext,
      title: 'drifted title',
    });
    expect(again.kind).toBe('found_settled');
    expect(await eventsOf(db, first.task.id)).toHaveLength(1);
    expect(await revisionsOf(services, first.task.id)).toEqual([0, 1]);
  });

  it('update, archive, release, delete: one event each at contiguous revisions, identity only while held', async ({
    db,
    services,
    writer,
    create,
    release,
  }) => {
    const ext = uniq('life-');
    const { task } = await create(ext);
    await updateTask(services, writer(), task.id, { title: 'Renamed' });
    await setArchived(services, writer(), task.id, true);
    expect((await release(ext)).status).toBe(204);
    await deleteTask(services, writer(), task.id);
    expect(await eventsOf(db, task.id)).toEqual([
      { type: 'task.created', revision: 1, external_id: ext, archived: false },
      { type: 'task.updated', revision: 2, external_id: ext, archived: false },
      { type: 'task.updated', revision: 3, external_id: ext, archived: true },
      { type: 'task.updated', revision: 4, external_id: undefined, archived: true },
      { type: 'task.deleted', revision: 5, external_id: undefined, archived: true },
    ]);
    expect(await revisionsOf(services, task.id)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('an update that changes nothing writes no event', async ({ db, services, writer, create }) => {
    const { task } = await create();
    await updateTask(services, writer(), task.id, { title: 'Sequenced' });
    await setArchived(services, writer(), task.id, false);
    expect(await eventsOf(db, task.id)).toHaveLength(1);
  });

  it('release while preparing → no event then; the later task.created (CreatedIdentityLost) carries no identity', async ({
    db,
    services,
    ws,
    writer,
    release,
  }) => {
    const ext = uniq('lost-');
    services.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext, times: 1 });
    const pending = createTask(
      services,
      writer(),
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'slow' }),
    );
    pending.catch(() => {});
    await until(() => (services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'paused after Begin');
    const row = await db.one<{ id: string }>('SELECT id FROM tasks WHERE external_id = $1', [ext]);
    expect((await release(ext)).status).toBe(204);
    expect(await eventsOf(db, row!.id)).toEqual([]);
    services.failpoints.release('after_begin');
    expect((await pending).kind).toBe('created_identity_lost');
    expect(await eventsOf(db, row!.id)).toEqual([
      { type: 'task.created', revision: 1, external_id: undefined, archived: false },
    ]);
  });

  it('re-using a freed identity never rewrites earlier payloads', async ({ db, services, writer, create }) => {
    const ext = uniq('reuse-');
    const first = await create(ext);
    await deleteTask(services, writer(), first.task.id);
    const before = await taskEvents(db, first.task.id);
    const second = await create(ext);
    expect(second.kind).toBe('created');
    expect(second.task.id).not.toBe(first.task.id);
    expect(await taskEvents(db, first.task.id)).toEqual(before);
    expect((await eventsOf(db, second.task.id))[0]).toMatchObject({
      type: 'task.created',
      revision: 1,
      external_id: ext,
    });
  });
});

describe('history reads (SPEC §9)', () => {
  it('event.list pages by seq with a stable cursor and no event twice', async ({ db, services }) => {
    const own = await makeWorkspace(db);
    const actor = tokenActor([own.id], ['tasks:read', 'tasks:write']);
    for (let i = 0; i < 5; i++) await createTask(services, actor, { workspace_id: own.id, title: `t${i}` });
    const seen: number[] = [];
    let after = 0;
    for (;;) {
      const page = await listEvents(services, actor, { workspaceId: own.id, after, limit: 2 });
      seen.push(...page.events.map((e) => e.seq));
      if (page.events.length === 0) break;
      after = page.next_after;
    }
    expect(seen).toHaveLength(5);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(new Set(seen).size).toBe(5);
  });

  it('event.list of a workspace the caller cannot read is the ordinary not-found', async ({ services, ws }) => {
    await expect(listEvents(services, tokenActor([randomUUID()]), { workspaceId: ws.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('task revisions stay readable after delete, 0..n in order, to readers of its workspace only', async ({
    services,
    ws,
    writer,
    create,
  }) => {
    const { task } = await create(uniq('rev-'));
    await deleteTask(services, writer(), task.id);
    const revs = await listRevisions(services, userActor({ [ws.id]: 'viewer' }), task.id);
    expect(revs.map((r) => [r.revision, r.change])).toEqual([
      [0, 'begin'],
      [1, 'create'],
      [2, 'delete'],
    ]);
    await expect(listRevisions(services, userActor({}), task.id)).rejects.toMatchObject({ code: 'task_not_found' });
  });
});
