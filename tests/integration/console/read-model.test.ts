// SPEC §13: the operator console's reads (overview, tasks table, find by external id, task detail, unsettled
// identities, creation operations, release history, events) and the admin settings (SPEC §11), through the tRPC
// procedures the console calls, on the dialect of the running project. They read through the data layer;
// these tests hold what they return to what the database holds.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { describe, expect, it as base, storedMember, storedToken } from '../../support/console-test';
import { uniq, until, userActor } from '../../support/fixtures';
import { EVENTS } from '../../support/events';

/** A stored row's timestamp as ISO text (both drivers read timestamps as ISO 8601). */
async function storedAt(db: Db, sql: string, params: unknown[]): Promise<string> {
  const row = await db.one<{ at: unknown }>(sql, params);
  return String(row?.at);
}

// Who reads and writes: an operator and a token stored as rows (so the release history can name them), an instance
// admin, and an admin of the other workspace only. Then the workspace every test reads, made before the first test
// (`auto`): three settled tasks, one create held open after Begin, and two releases.
const it = base
  .extend('operator', { scope: 'file' }, async ({ db, ws }) => storedMember(db, ws.id, 'operator'))
  .extend('bot', { scope: 'file' }, async ({ db, ws }) => storedToken(db, ws.id, uniq('bot')))
  .extend('admin', { scope: 'file' }, async () => userActor({}, true))
  .extend('stranger', { scope: 'file' }, async ({ other }) => userActor({ [other.id]: 'admin' }))
  .extend('tasks', { scope: 'file', auto: true }, async ({ services, ws, as, operator, bot }, { onCleanup }) => {
    // Three settled tasks through the real create path; Bravo moves to Doing, Charlie (no identity) is archived.
    const create = async (title: string, external_id?: string, remote_contributions?: string[]) => {
      const r = await as(bot).task.create({
        workspace_id: ws.id,
        title,
        ...(external_id ? { external_id } : {}),
        ...(remote_contributions ? { remote_contributions } : {}),
      });
      return { id: r.id, identifier: r.identifier };
    };
    const alpha = await create('Alpha', 'jira:A-1');
    // Bravo's plan has steps (two remote contributions, SPEC §5), so its operation has a timeline.
    const bravo = await create('Bravo', 'jira:B-2', [
      'https://git.example/acme/app/pull/1',
      'https://git.example/acme/app/pull/2',
    ]);
    const charlie = await create('Charlie');
    await as(bot).task.update({ id: bravo.id, patch: { step_id: ws.steps[1]!.id, description: 'second' } });
    await as(bot).task.archive({ id: charlie.id });

    // One create held open after Begin: an unsettled identity with an open operation (SPEC §4.3).
    services.failpoints.arm({ name: 'after_begin', action: 'pause', match: 'mail:thread-9', times: 1 });
    const pending = createTask(services, bot, {
      workspace_id: ws.id,
      external_id: 'mail:thread-9',
      title: 'Delta',
      remote_contributions: ['https://git.example/acme/app/pull/9'],
    });
    pending.catch(() => {});
    onCleanup(async () => {
      services.failpoints.releaseAll();
      await pending.catch(() => {});
    });
    await until(() => (services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'create paused after Begin');

    // Two releases: one frees Alpha's identity (by a person), one finds nothing (by a token).
    await as(operator).task.releaseExternalId({
      workspace_id: ws.id,
      external_id: 'jira:A-1',
      idempotency_key: randomUUID(),
    });
    // SPEC §10: "nothing holds it" is a NOT_FOUND error on tRPC; its result is still stored, so the history lists it.
    await expect(
      as(bot).task.releaseExternalId({ workspace_id: ws.id, external_id: 'jira:none', idempotency_key: randomUUID() }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'task not found',
    });
    return { alpha, bravo, charlie };
  });

describe('console reads (SPEC §13)', () => {
  it('overview: counts, creates by hour and the newest events', async ({ db, ws, as, operator }) => {
    const o = await as(operator).console.overview({ workspace_id: ws.id });
    expect(o.counts).toEqual({
      tasks: 4,
      archived: 1,
      unsettled: 1,
      creations_in_flight: 1,
      releases_24h: 2,
      released_24h: 1,
    });
    expect(o.creates_by_hour).toHaveLength(24);
    const sum = (k: 'created' | 'identity_lost' | 'aborted' | 'in_flight') =>
      o.creates_by_hour.reduce((n, h) => n + h[k], 0);
    const ops = await db.query<{ state: unknown }>('SELECT state FROM creation_operations WHERE workspace_id = $1', [
      ws.id,
    ]);
    expect(sum('created')).toBe(ops.filter((r) => r.state === 'completed').length);
    expect(sum('in_flight')).toBe(1);
    expect(sum('identity_lost') + sum('aborted')).toBe(0);
    const seqs = (
      await db.query<{ seq: unknown }>(`SELECT seq FROM ${EVENTS} WHERE workspace_id = $1 ORDER BY seq DESC LIMIT 10`, [
        ws.id,
      ])
    ).map((r) => Number(r.seq));
    expect(o.recent_events.map((e) => e.seq)).toEqual(seqs);
  });

  it('tasks table: each sort, both directions, archived filter, keyset pages and the matching count', async ({
    ws,
    as,
    operator,
  }) => {
    type Input = Partial<{
      sort: 'identifier' | 'title' | 'external_id' | 'step' | 'created_at';
      dir: 'asc' | 'desc';
      archived: 'include' | 'exclude' | 'only';
      cursor: string;
      direction: 'after' | 'before';
      limit: number;
    }>;
    const page = (input: Input) => as(operator).console.tasks({ workspace_id: ws.id, ...input });
    const ids = async (input: Input) => {
      const p = await page(input);
      return { titles: p.rows.map((r) => r.title), total: p.matching };
    };
    expect(await ids({})).toEqual({ titles: ['Delta', 'Charlie', 'Bravo', 'Alpha'], total: 4 });
    expect(await ids({ sort: 'title', dir: 'asc' })).toEqual({
      titles: ['Alpha', 'Bravo', 'Charlie', 'Delta'],
      total: 4,
    });
    // Tasks without an identity sort last either way (Alpha's was released).
    expect((await ids({ sort: 'external_id', dir: 'asc' })).titles).toEqual(['Bravo', 'Delta', 'Charlie', 'Alpha']);
    expect((await ids({ sort: 'external_id', dir: 'desc' })).titles).toEqual(['Delta', 'Bravo', 'Charlie', 'Alpha']);
    expect((await ids({ sort: 'step', dir: 'desc' })).titles).toEqual(['Bravo', 'Delta', 'Charlie', 'Alpha']);
    expect((await ids({ sort: 'created_at', dir: 'asc' })).titles).toEqual(['Alpha', 'Bravo', 'Charlie', 'Delta']);
    expect(await ids({ archived: 'exclude' })).toEqual({ titles: ['Delta', 'Bravo', 'Alpha'], total: 3 });
    expect(await ids({ archived: 'only' })).toEqual({ titles: ['Charlie'], total: 1 });
    // Keyset pages: forward with next_cursor, back with prev_cursor, across the held / no-identity boundary too.
    for (const sort of ['title', 'external_id', 'step', 'created_at', 'identifier'] as const) {
      const all = (await page({ sort, dir: 'asc' })).rows.map((r) => r.title);
      const first = await page({ sort, dir: 'asc', limit: 3 });
      expect(first.prev_cursor).toBeNull();
      const second = await page({ sort, dir: 'asc', limit: 3, cursor: first.next_cursor! });
      expect([...first.rows, ...second.rows].map((r) => r.title)).toEqual(all);
      expect(second.next_cursor).toBeNull();
      const back = await page({ sort, dir: 'asc', limit: 3, cursor: second.prev_cursor!, direction: 'before' });
      expect(back.rows.map((r) => r.title)).toEqual(all.slice(0, 3));
      expect(back.prev_cursor).toBeNull();
      expect(back.next_cursor).not.toBeNull();
    }
    // A cursor is a position in one sort: another sort refuses it with a clear error.
    const first = await page({ sort: 'title', dir: 'asc', limit: 1 });
    await expect(page({ sort: 'title', dir: 'desc', cursor: first.next_cursor! })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'invalid request: cursor: it belongs to another sort; start from the first page',
    });
    await expect(page({ cursor: 'not a cursor' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: 'invalid request: cursor: not a cursor of this list; start from the first page',
    });
  });

  it('tasks table rows carry settlement, creation state and the step name', async ({ db, ws, as, operator, tasks }) => {
    const { rows } = await as(operator).console.tasks({ workspace_id: ws.id, sort: 'title', dir: 'asc' });
    const bravo = rows.find((r) => r.id === tasks.bravo.id)!;
    expect(bravo).toEqual({
      id: tasks.bravo.id,
      workspace_id: ws.id,
      identifier: tasks.bravo.identifier,
      title: 'Bravo',
      external_id: 'jira:B-2',
      external_id_settled_at: await storedAt(db, 'SELECT external_id_settled_at AS at FROM tasks WHERE id = $1', [
        tasks.bravo.id,
      ]),
      settlement: 'settled',
      creation_state: 'completed',
      archived_at: null,
      created_at: await storedAt(db, 'SELECT created_at AS at FROM tasks WHERE id = $1', [tasks.bravo.id]),
      updated_at: await storedAt(db, 'SELECT updated_at AS at FROM tasks WHERE id = $1', [tasks.bravo.id]),
      revision: 2,
      step_id: ws.steps[1]!.id,
      step_name: 'Doing',
      lookalikes: [],
    });
    expect(rows.map((r) => [r.title, r.settlement])).toEqual([
      ['Alpha', 'none'],
      ['Bravo', 'settled'],
      ['Charlie', 'none'],
      ['Delta', 'unsettled'],
    ]);
    expect(rows.find((r) => r.title === 'Charlie')!.archived_at).toBe(
      await storedAt(db, 'SELECT archived_at AS at FROM tasks WHERE id = $1', [tasks.charlie.id]),
    );
  });

  it('find by external id: exact after normalization, nothing holding it, invalid input', async ({
    ws,
    as,
    operator,
    tasks,
  }) => {
    const found = await as(operator).console.findByExternalId({ workspace_id: ws.id, external_id: 'jira:B-2' });
    expect(found).toMatchObject({
      normalized: 'jira:B-2',
      error: null,
      task: { id: tasks.bravo.id, step_name: 'Doing', settlement: 'settled' },
    });
    expect(await as(operator).console.findByExternalId({ workspace_id: ws.id, external_id: 'jira:b-2' })).toEqual({
      workspace: { id: ws.id, name: expect.any(String), prefix: ws.prefix },
      elsewhere: [],
      normalized: 'jira:b-2',
      visible_form: false,
      error: null,
      task: null,
      last_release: null,
      free_since: null,
      held_before: false,
    });
    expect(await as(operator).console.findByExternalId({ workspace_id: ws.id, external_id: '' })).toMatchObject({
      normalized: null,
      task: null,
    });
    expect((await as(operator).console.findByExternalId({ workspace_id: ws.id, external_id: '' })).error).toMatch(
      /external_id/,
    );
  });

  it('task detail: identity panel, creation operation, revisions and events, newest first', async ({
    db,
    as,
    operator,
    bot,
    tasks,
  }) => {
    const d = await as(operator).console.task({ id: tasks.bravo.id });
    expect(d.task).toMatchObject({ id: tasks.bravo.id, description: 'second', parent_id: null, step_name: 'Doing' });
    expect(d.can_release).toBe(true);
    expect(d.operation).toMatchObject({
      task_id: tasks.bravo.id,
      task_identifier: tasks.bravo.identifier,
      state: 'completed',
      outcome: 'created',
      external_id: 'jira:B-2',
    });
    expect([d.operation!.steps_total, d.operation!.steps_succeeded]).toEqual([2, 2]);
    expect(d.revisions.map((r) => r.revision)).toEqual([2, 1, 0]);
    expect(d.revisions[0]!.actor_id).toBe(bot.id);
    expect(JSON.parse(d.revisions[0]!.snapshot!)).toMatchObject({ title: 'Bravo' });
    const events = await db.query<{ seq: unknown; type: unknown }>(
      `SELECT seq, type FROM ${EVENTS} WHERE task_id = $1 ORDER BY seq DESC`,
      [tasks.bravo.id],
    );
    expect(d.events.map((e) => [e.seq, e.type])).toEqual(events.map((e) => [Number(e.seq), e.type]));
    expect(d.events[0]).toMatchObject({
      task_id: tasks.bravo.id,
      task_identifier: tasks.bravo.identifier,
      external_id: 'jira:B-2',
      revision: 2,
    });
    expect(
      (await as({ ...bot, scopes: new Set(['tasks:read']) }).console.task({ id: tasks.bravo.id })).can_release,
    ).toBe(false);
  });

  it('unsettled identities with the operation that is creating each', async ({ db, ws, as, operator }) => {
    const list = await as(operator).console.unsettled({ workspace_id: ws.id });
    expect(list).toHaveLength(1);
    const [{ task, operation }] = list as [(typeof list)[number]];
    expect(task).toMatchObject({
      title: 'Delta',
      external_id: 'mail:thread-9',
      settlement: 'unsettled',
      external_id_settled_at: null,
    });
    const op = await db.one<{ id: unknown; state: unknown; lease_owner: unknown }>(
      'SELECT id, state, lease_owner FROM creation_operations WHERE task_id = $1',
      [task.id],
    );
    expect(operation).toMatchObject({
      id: String(op!.id),
      task_id: task.id,
      task_identifier: null,
      state: String(op!.state),
      lease_owner: String(op!.lease_owner),
    });
    expect(['preparing', 'completing']).toContain(operation!.state);
    expect(operation!.lease_expires_at).toBe(
      await storedAt(db, 'SELECT lease_expires_at AS at FROM creation_operations WHERE id = $1', [op!.id]),
    );
    expect([operation!.steps_total, operation!.steps_succeeded]).toEqual([1, 0]);
  });

  it('creation operations: all newest first, open only, by state', async ({ db, ws, as, operator, tasks }) => {
    const all = (await as(operator).console.operations({ workspace_id: ws.id })).rows;
    const stored = await db.query<{ id: unknown }>(
      'SELECT id FROM creation_operations WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC',
      [ws.id],
    );
    expect(all.map((o) => o.id)).toEqual(stored.map((r) => String(r.id)));
    expect(all.find((o) => o.task_id === tasks.alpha.id)).toMatchObject({
      task_identifier: tasks.alpha.identifier,
      state: 'completed',
      identity_released: false,
    });
    const open = (await as(operator).console.operations({ workspace_id: ws.id, state: 'open' })).rows;
    expect(open.map((o) => o.external_id)).toEqual(['mail:thread-9']);
    const completed = (await as(operator).console.operations({ workspace_id: ws.id, state: 'completed' })).rows;
    expect(completed.every((o) => o.state === 'completed' && o.finished_at !== null && o.lease_owner === null)).toBe(
      true,
    );
    expect(completed.length).toBe(all.length - 1);
    expect((await as(operator).console.operations({ workspace_id: ws.id, state: 'aborted' })).rows).toEqual([]);
  });

  it('one operation: its task and step timeline with pretty-printed JSON', async ({ db, ws, as, operator, tasks }) => {
    const id = (await as(operator).console.operations({ workspace_id: ws.id, state: 'completed' })).rows.find(
      (o) => o.task_id === tasks.bravo.id,
    )!.id;
    const d = await as(operator).console.operation({ id });
    expect(d.operation).toMatchObject({ id, task_id: tasks.bravo.id, task_identifier: tasks.bravo.identifier });
    expect(d.task).toMatchObject({ id: tasks.bravo.id, title: 'Bravo' });
    const steps = await db.query<{ step_index: unknown; kind: unknown; params: unknown; started_at: unknown }>(
      'SELECT step_index, kind, params, started_at FROM creation_steps WHERE operation_id = $1 ORDER BY step_index',
      [id],
    );
    expect(d.steps.map((s) => [s.index, s.kind, s.state, s.attempts])).toEqual([
      [0, 'remote_contribution', 'succeeded', 1],
      [1, 'remote_contribution', 'succeeded', 1],
    ]);
    expect(steps).toHaveLength(2);
    expect(d.steps[0]!.params).toBe(JSON.stringify(JSON.parse(String(steps[0]!.params)), null, 2));
    expect(JSON.parse(d.steps[1]!.params!)).toEqual({ url: 'https://git.example/acme/app/pull/2' });
    expect(d.steps[0]!.started_at).toBe(steps[0]!.started_at === null ? null : String(steps[0]!.started_at));
    expect(d.steps[0]!.finished_at).toMatch(/Z$/);
  });

  it('release history: who (email or token name), the holder, the result and the key', async ({
    db,
    ws,
    as,
    operator,
    bot,
    tasks,
  }) => {
    const history = (await as(operator).console.releases({ workspace_id: ws.id })).rows;
    const stored = await db.query<{ id: unknown; idempotency_key: unknown; created_at: unknown }>(
      'SELECT id, idempotency_key, created_at FROM release_operations WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC',
      [ws.id],
    );
    expect(history.map((r) => [r.id, r.idempotency_key, r.created_at])).toEqual(
      stored.map((r) => [String(r.id), String(r.idempotency_key), String(r.created_at)]),
    );
    expect(history.find((r) => r.external_id === 'jira:A-1')).toMatchObject({
      actor: { kind: 'user', label: operator.label },
      source: 'console',
      holder_task_id: tasks.alpha.id,
      holder_identifier: tasks.alpha.identifier,
      result: 'released',
    });
    expect(history.find((r) => r.external_id === 'jira:none')).toMatchObject({
      actor: { kind: 'token', label: `token “${bot.label}”` },
      holder_task_id: null,
      holder_identifier: null,
      result: 'nothing_held_it',
    });
  });

  it('events: the newest first, at most the limit, with the task named from the payload', async ({
    db,
    ws,
    as,
    operator,
  }) => {
    const events = await as(operator).console.events({ workspace_id: ws.id, limit: 3 });
    const stored = await db.query<{ seq: unknown }>(
      `SELECT seq FROM ${EVENTS} WHERE workspace_id = $1 ORDER BY seq DESC LIMIT 3`,
      [ws.id],
    );
    expect(events.map((e) => e.seq)).toEqual(stored.map((r) => Number(r.seq)));
    expect(events.every((e) => typeof e.task_identifier === 'string' && e.created_at.endsWith('Z'))).toBe(true);
  });

  it('answers the same 404 for a workspace the actor cannot see, whatever the read', async ({
    ws,
    as,
    operator,
    stranger,
    tasks,
  }) => {
    const reads = [
      () => as(stranger).console.overview({ workspace_id: ws.id }),
      () => as(stranger).console.tasks({ workspace_id: ws.id }),
      () => as(stranger).console.findByExternalId({ workspace_id: ws.id, external_id: 'jira:B-2' }),
      () => as(stranger).console.unsettled({ workspace_id: ws.id }),
      () => as(stranger).console.operations({ workspace_id: ws.id }),
      () => as(stranger).console.releases({ workspace_id: ws.id }),
      () => as(stranger).console.events({ workspace_id: ws.id }),
      () => as(stranger).workspace.steps({ workspace_id: ws.id }),
    ];
    for (const read of reads) await expect(read()).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(as(stranger).console.task({ id: tasks.bravo.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const opId = (await as(operator).console.operations({ workspace_id: ws.id })).rows[0]!.id;
    await expect(as(stranger).console.operation({ id: opId })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('admin settings (SPEC §11)', () => {
  it('adds a new member (creating the user), changes and removes a role, and lists members by email', async ({
    ws,
    as,
    admin,
  }) => {
    const email = `${uniq('new')}@example.test`;
    await as(admin).admin.addMember({
      workspace_id: ws.id,
      email: email.toUpperCase(),
      role: 'viewer',
      password: 'long enough password',
    });
    let members = await as(admin).admin.members({ workspace_id: ws.id });
    expect(members.map((m) => m.email)).toEqual([...members.map((m) => m.email)].sort());
    const added = members.find((m) => m.email === email)!;
    expect(added.role).toBe('viewer');
    await as(admin).admin.addMember({ workspace_id: ws.id, email, role: 'operator' });
    await as(admin).admin.setRole({ workspace_id: ws.id, user_id: added.user_id, role: 'admin' });
    members = await as(admin).admin.members({ workspace_id: ws.id });
    expect(members.find((m) => m.user_id === added.user_id)?.role).toBe('admin');
    await as(admin).admin.setRole({ workspace_id: ws.id, user_id: added.user_id, role: null });
    expect((await as(admin).admin.members({ workspace_id: ws.id })).some((m) => m.user_id === added.user_id)).toBe(
      false,
    );
    await expect(
      as(admin).admin.setRole({ workspace_id: ws.id, user_id: 'no-such-user', role: 'viewer' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('creates, lists and revokes a token granted on the workspace; never shows a secret', async ({
    db,
    ws,
    other,
    as,
    admin,
  }) => {
    const created = await as(admin).admin.createToken({
      workspace_id: ws.id,
      name: 'console bot',
      scopes: ['tasks:read'],
    });
    expect(created.token).toMatch(/^tth_/);
    const listed = (await as(admin).admin.tokens({ workspace_id: ws.id })).find((t) => t.id === created.id);
    expect(listed).toMatchObject({
      name: 'console bot',
      scopes: ['tasks:read'],
      workspace_ids: [ws.id],
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(created.token.split('_').slice(2).join('_'));
    expect(await db.one('SELECT created_by FROM api_tokens WHERE id = $1', [created.id])).toEqual({
      created_by: admin.id,
    });
    await as(admin).admin.revokeToken({ workspace_id: ws.id, id: created.id });
    expect(
      (await as(admin).admin.tokens({ workspace_id: ws.id })).find((t) => t.id === created.id)?.revoked_at,
    ).toMatch(/Z$/);
    // A token of another workspace is not this workspace's admin's to revoke.
    const theirs = await as(admin).admin.createToken({
      workspace_id: other.id,
      name: 'theirs',
      scopes: ['tasks:read'],
    });
    await expect(as(admin).admin.revokeToken({ workspace_id: ws.id, id: theirs.id })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('sets a WIP limit the workspace steps then show, and 404s a step of another workspace', async ({
    ws,
    other,
    as,
    operator,
    admin,
  }) => {
    await as(admin).admin.setWipLimit({ workspace_id: ws.id, step_id: ws.steps[1]!.id, wip_limit: 3 });
    expect(await as(operator).workspace.steps({ workspace_id: ws.id })).toEqual([
      { id: ws.steps[0]!.id, name: 'Todo', position: 0, wip_limit: null, is_done: false },
      { id: ws.steps[1]!.id, name: 'Doing', position: 1, wip_limit: 3, is_done: false },
      { id: ws.steps[2]!.id, name: 'Done', position: 2, wip_limit: null, is_done: true },
    ]);
    await as(admin).admin.setWipLimit({ workspace_id: ws.id, step_id: ws.steps[1]!.id, wip_limit: null });
    expect((await as(operator).workspace.steps({ workspace_id: ws.id }))[1]!.wip_limit).toBeNull();
    await expect(
      as(admin).admin.setWipLimit({ workspace_id: ws.id, step_id: other.steps[0]!.id, wip_limit: 1 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses every admin procedure to a non-admin with the same 404', async ({ ws, as, operator }) => {
    await expect(as(operator).admin.members({ workspace_id: ws.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(as(operator).admin.tokens({ workspace_id: ws.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      as(operator).admin.setWipLimit({ workspace_id: ws.id, step_id: ws.steps[0]!.id, wip_limit: 1 }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
