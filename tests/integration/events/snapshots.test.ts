// SPEC §9: how a revision's snapshot is stored is free as long as every reader sees the same thing. New revisions
// store the compact form (db/repositories/snapshots.ts); rows written before it hold the whole task object. Both must
// read exactly alike, on the dialect of the running project: each reader's answer is compared with the rows as
// written, and again after every snapshot is rewritten in the old whole form.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/server/db/types';
import { eventIdOf } from '../../../src/server/db/repositories/events';
import { decodeSnapshot, encodeSnapshot, type SnapshotKey } from '../../../src/server/db/repositories/snapshots';
import { releaseExternalId } from '../../../src/server/domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../../../src/server/domain/tasks/change-task';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { toTaskBody, type Task, type TaskBody } from '../../../src/server/model/task';
import type { Services } from '../../../src/server/services';
import { describe, expect, it } from '../../support/database-test';
import { taskEvents } from '../../support/events';
import { tokenActor, uniq } from '../../support/fixtures';

interface StoredRevision {
  revision: unknown;
  snapshot: string;
}

const stored = (db: Db, taskId: string) =>
  db.query<StoredRevision>('SELECT revision, snapshot FROM task_revisions WHERE task_id = $1 ORDER BY revision', [
    taskId,
  ]);

/** What every reader of a task's revisions and events answers. */
async function readers(services: Services, db: Db, taskId: string) {
  const { events, console, identities } = services.store;
  return JSON.stringify({
    events: await taskEvents(db, taskId),
    history: await events.listRevisions(taskId),
    consoleRevisions: await console.revisionsOfTask(taskId, 50),
    consoleEvents: await console.eventsOfTask(taskId, 50),
    lastRevision: await identities.lastRevisions([taskId]),
  });
}

describe('stored snapshots (SPEC §9)', () => {
  it('a compact snapshot and the whole object an older row holds read the same, for every reader', async ({
    db,
    services,
    ws,
  }) => {
    const writer = tokenActor([ws.id], ['tasks:read', 'tasks:write', 'identities:release']);
    const ext = uniq('snap-');
    const created = await createTask(services, writer, {
      workspace_id: ws.id,
      external_id: ext,
      title: 'Snapshot "é" \u2028',
      description: 'line\nnext',
    });
    const id = created.task.id;
    // Each revision's task as the writer committed it: the whole object a row written before the compact form holds.
    const committed: Task[] = [created.task];
    committed.push(await updateTask(services, writer, id, { title: 'Renamed' }));
    committed.push(await setArchived(services, writer, id, true));
    await releaseExternalId(services, writer, {
      workspaceId: ws.id,
      rawExternalId: ext,
      idempotencyKey: randomUUID(),
      source: 'test',
    });
    await deleteTask(services, writer, id);

    const rows = await stored(db, id);
    expect(rows.map((r) => Number(r.revision))).toEqual([1, 2, 3, 4, 5]);
    for (const r of rows) expect(r.snapshot.startsWith('[')).toBe(true);
    const before = await readers(services, db, id);

    // The whole form of each revision: the task the reader decodes (its payload's `task`), checked against what the
    // writer returned where the writer returns the task.
    const events = await taskEvents(db, id);
    const whole = events.map((e) => JSON.stringify(e.task));
    for (const [i, task] of committed.entries())
      expect(whole[i]).toBe(JSON.stringify(toTaskBody({ ...task, updatedAt: events[i]!.occurred_at })));
    for (const [i, r] of rows.entries()) {
      expect(r.snapshot.length).toBeLessThan(whole[i]!.length / 2);
      await db.run('UPDATE task_revisions SET snapshot = $1 WHERE task_id = $2 AND revision = $3', [
        whole[i],
        id,
        r.revision,
      ]);
    }
    expect((await stored(db, id)).map((r) => r.snapshot)).toEqual(whole);
    expect(await readers(services, db, id)).toBe(before);
  });
});

describe('stored event ids (SPEC §9)', () => {
  it('an event made now stores no id and every reader derives it; an id stored before reads as stored', async ({
    db,
    services,
    ws,
  }) => {
    const writer = tokenActor([ws.id], ['tasks:read', 'tasks:write']);
    const created = await createTask(services, writer, {
      workspace_id: ws.id,
      external_id: uniq('ids-'),
      title: 'Ids',
    });
    const id = created.task.id;
    await updateTask(services, writer, id, { title: 'Renamed' });
    await deleteTask(services, writer, id);
    const op = await db.one<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = $1', [id]);
    const { events, creation } = services.store;
    // Every reader of an event's id: the relay and history pages, webhook planning, the console, the test helper,
    // and the zero-step create's compact operation, whose outcome names revision 1's event.
    const ids = async () => {
      const all = await events.listEvents({ workspaceId: ws.id, after: 0, upTo: Number.MAX_SAFE_INTEGER, limit: 100 });
      const keys = await events.listEventKeys({
        workspaceId: ws.id,
        after: 0,
        upTo: Number.MAX_SAFE_INTEGER,
        limit: 100,
      });
      const mine = all.filter((e) => e.task_id === id);
      const seqs = new Set(mine.map((e) => e.seq));
      return {
        relay: mine.map((e) => e.id),
        planning: keys.filter((k) => seqs.has(k.seq)).map((k) => k.id),
        console: (await services.store.console.eventsOfTask(id, 50)).map((e) => e.id).reverse(),
        helper: (await taskEvents(db, id)).map((e) => e.id),
        outcome: (await creation.findOperation(op!.id))?.outcome?.event_id,
      };
    };

    const rows = () =>
      db.query<{ revision: unknown; event_id: unknown }>(
        'SELECT revision, event_id FROM task_revisions WHERE task_id = $1 ORDER BY revision',
        [id],
      );
    expect((await rows()).map((r) => r.event_id)).toEqual([null, null, null]);
    const derived = [1, 2, 3].map((n) => eventIdOf(id, n));
    expect(new Set(derived).size).toBe(3);
    expect(derived.every((e) => /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(e))).toBe(
      true,
    );
    expect(await ids()).toEqual({
      relay: derived,
      planning: derived,
      console: derived,
      helper: derived,
      outcome: derived[0],
    });

    // Rows written before ids were derived hold the random id they were delivered with: it is the one read.
    const random = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, e] of random.entries())
      await db.run('UPDATE task_revisions SET event_id = $1 WHERE task_id = $2 AND revision = $3', [e, id, i + 1]);
    expect(await ids()).toEqual({
      relay: random,
      planning: random,
      console: random,
      helper: random,
      outcome: random[0],
    });
  });
});

describe('the stored form', () => {
  const key: SnapshotKey = {
    taskId: '6f1c7d7e-0000-4000-8000-000000000001',
    workspaceId: '6f1c7d7e-0000-4000-8000-000000000002',
    revision: 2,
    at: '2026-12-03T08:00:00.123Z',
  };
  const body = (over: Partial<TaskBody> = {}): TaskBody => ({
    id: key.taskId,
    workspace_id: key.workspaceId,
    identifier: 'W-7',
    title: 'T "q" \u2028 é',
    description: null,
    step_id: '6f1c7d7e-0000-4000-8000-000000000003',
    parent_id: null,
    archived_at: null,
    created_at: '2026-12-01T10:00:00.000Z',
    updated_at: key.at,
    revision: key.revision,
    ...over,
  });
  const roundTrip = (b: TaskBody, k = key) => JSON.stringify(decodeSnapshot(encodeSnapshot(b, k), k));

  it('decodes to the text of the whole object, whatever the fields hold', () => {
    const cases: TaskBody[] = [
      body(),
      { ...body(), external_id: 'ext "1"' },
      body({ created_at: key.at, description: '', parent_id: key.taskId, archived_at: key.at }),
      body({ updated_at: '2026-12-01T10:00:00.000Z', archived_at: '2026-12-02T00:00:00.000Z' }),
    ];
    for (const b of cases) {
      expect(roundTrip(b)).toBe(JSON.stringify(b));
      expect(encodeSnapshot(b, key).startsWith('[')).toBe(true);
      // The older whole form decodes to its own text.
      expect(JSON.stringify(decodeSnapshot(JSON.stringify(b), key))).toBe(JSON.stringify(b));
    }
    // A clock reading the drivers would not read back as the same text is stored, not left to the row.
    const micro = '2026-12-03T08:00:00.123456Z';
    expect(encodeSnapshot(body({ updated_at: micro }), { ...key, at: micro })).toContain(micro);
    expect(roundTrip(body({ updated_at: micro }), { ...key, at: micro })).toBe(
      JSON.stringify(body({ updated_at: micro })),
    );
    expect(encodeSnapshot({ ...body({ created_at: key.at }), external_id: 'e' }, key)).toBe(
      '["W-7","T \\"q\\" \u2028 é","6f1c7d7e-0000-4000-8000-000000000003","e"]',
    );
  });

  it('stores the whole object when the row does not imply what the array leaves out', () => {
    const odd: Array<[TaskBody, SnapshotKey]> = [
      [body(), { ...key, revision: 3 }],
      [body(), { ...key, taskId: 'other' }],
      [{ ...body(), external_id: null as unknown as string }, key],
      [Object.fromEntries(Object.entries(body()).reverse()) as unknown as TaskBody, key],
    ];
    for (const [b, k] of odd) {
      expect(encodeSnapshot(b, k)).toBe(JSON.stringify(b));
      expect(roundTrip(b, k)).toBe(JSON.stringify(b));
    }
  });
});
