// SPEC §13: "Lists are paged with a total and filterable (operations by state, external-id prefix and time; releases by
// reason and actor); nothing is silently cut off." The operations list used to stop at 200 rows with no way on, and the
// releases list had neither filters nor pages. Through the tRPC procedures the console calls, on both dialects.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../../src/server/db/types';
import { describe, expect, it as base, type ConsoleCaller } from '../../support/console-test';
import { makeWorkspace, uniq, userActor, type TestWorkspace } from '../../support/fixtures';

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const STATES = ['completed', 'completed', 'aborted', 'completed', 'preparing'] as const;
/** 137 operations: three share each instant (ids break the tie), ids `jira:` or `gh:`, one state in five per kind. */
const OPERATIONS = 137;

async function insertOperation(
  db: Db,
  w: TestWorkspace,
  o: { id?: string; at: string; state: string; externalId: string | null; requestId?: string | null },
) {
  const id = o.id ?? randomUUID();
  await db.run(
    `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, identity_released, generation,
       created_at, updated_at, request_id) VALUES ($1, $2, $3, $4, $5, $6, '{"steps":[]}', 'x', $7, 0, $8, $8, $9)`,
    [id, w.id, randomUUID(), 'system', o.externalId, o.state, false, o.at, o.requestId ?? null],
  );
  return id;
}

/** The ids of a list's rows in the workspace, as stored in the order the list shows: newest first, ties by id. */
function storedOrder(db: Db, ws: TestWorkspace, table: 'creation_operations' | 'release_operations') {
  return async (where = '', params: unknown[] = []): Promise<string[]> => {
    const rows = await db.query<{ id: unknown }>(
      `SELECT id FROM ${table} WHERE workspace_id = $1 ${where} ORDER BY created_at DESC, id DESC`,
      [ws.id, ...params],
    );
    return rows.map((r) => String(r.id));
  };
}

const at = (i: number) => new Date(BASE + Math.floor(i / 3) * 60_000).toISOString();

type OpsInput = Parameters<ConsoleCaller['console']['operations']>[0];
type RelInput = Parameters<ConsoleCaller['console']['releases']>[0];

// A viewer of the file's workspace, an admin of the other one, the workspace's operations and releases in the stored
// order, and every page of the operations list from the first, then back from the last: ids in order, and
// each page's position and total.
const it = base
  .extend('viewer', { scope: 'file' }, async ({ ws }) => userActor({ [ws.id]: 'viewer' }))
  .extend('stranger', { scope: 'file' }, async ({ other }) => userActor({ [other.id]: 'admin' }))
  .extend('storedIds', { scope: 'file' }, async ({ db, ws }) => storedOrder(db, ws, 'creation_operations'))
  .extend(
    'walk',
    { scope: 'file' },
    async ({ ws, as, viewer }) =>
      async (input: Omit<OpsInput, 'workspace_id'>, limit: number) => {
        const list = (more: Pick<OpsInput, 'cursor' | 'direction'> = {}) =>
          as(viewer).console.operations({ workspace_id: ws.id, ...input, limit, ...more });
        const forward: string[] = [];
        const positions: number[] = [];
        let page = await list();
        const total = page.total;
        for (;;) {
          positions.push(page.first_position);
          forward.push(...page.rows.map((r) => r.id));
          if (!page.next_cursor) break;
          page = await list({ cursor: page.next_cursor });
          expect(page.total).toBe(total);
        }
        const backward: string[] = [];
        for (;;) {
          backward.unshift(...page.rows.map((r) => r.id));
          if (!page.prev_cursor) break;
          page = await list({ cursor: page.prev_cursor, direction: 'before' });
        }
        return { forward, backward, positions, total };
      },
  )
  .extend('storedReleases', { scope: 'file' }, async ({ db, ws }) => storedOrder(db, ws, 'release_operations'))
  .extend(
    'allReleases',
    { scope: 'file' },
    async ({ ws, as, viewer }) =>
      async (input: Omit<RelInput, 'workspace_id'>) => {
        const list = (cursor?: string) =>
          as(viewer).console.releases({ workspace_id: ws.id, ...input, limit: 10, ...(cursor ? { cursor } : {}) });
        const ids: string[] = [];
        let page = await list();
        const total = page.total;
        for (;;) {
          ids.push(...page.rows.map((r) => r.id));
          if (!page.next_cursor) break;
          page = await list(page.next_cursor);
        }
        expect(ids).toHaveLength(total);
        return ids;
      },
  );

it.beforeAll(async ({ db, ws, other }) => {
  for (let i = 0; i < OPERATIONS; i++) {
    await insertOperation(db, ws, {
      at: at(i),
      state: STATES[i % STATES.length]!,
      externalId: i % 10 === 9 ? null : `${i % 2 ? 'gh' : 'jira'}:${i}`,
    });
  }
  // Another workspace's operations never show.
  await insertOperation(db, other, { at: at(0), state: 'completed', externalId: 'jira:0' });
}, 60_000);

describe('the operations list (SPEC §13)', () => {
  it('reaches every operation once, newest first, forwards and backwards, with the total and where each page starts', async ({
    walk,
    storedIds,
  }) => {
    const { forward, backward, positions, total } = await walk({}, 20);
    const stored = await storedIds();
    expect(stored).toHaveLength(OPERATIONS);
    expect(forward).toEqual(stored);
    expect(backward).toEqual(stored);
    expect(total).toBe(OPERATIONS);
    expect(positions).toEqual([1, 21, 41, 61, 81, 101, 121]);
  });

  it('filters by state (and in flight), external-id prefix and time range; the total counts what matches', async ({
    ws,
    as,
    viewer,
    walk,
    storedIds,
  }) => {
    const aborted = await walk({ state: 'aborted' }, 7);
    expect(aborted.forward).toEqual(await storedIds("AND state = 'aborted'"));
    expect(aborted.total).toBe(aborted.forward.length);
    const open = await walk({ state: 'open' }, 50);
    expect(open.forward).toEqual(await storedIds("AND state IN ('preparing', 'completing', 'aborting')"));

    const gh = await walk({ prefix: 'gh:1' }, 5);
    expect(gh.forward).toEqual(await storedIds("AND external_id >= 'gh:1' AND external_id < 'gh:2'"));
    expect(gh.forward.length).toBeGreaterThan(5);

    const from = at(30);
    const before = at(60);
    const range = await walk({ from, before }, 8);
    expect(range.forward).toEqual(await storedIds('AND created_at >= $2 AND created_at < $3', [from, before]));
    expect(range.total).toBe(30);

    const both = await as(viewer).console.operations({
      workspace_id: ws.id,
      state: 'completed',
      prefix: 'jira:',
      from,
      before,
      limit: 200,
    });
    expect(
      both.rows.every(
        (r) =>
          r.state === 'completed' &&
          r.external_id!.startsWith('jira:') &&
          r.created_at >= from &&
          r.created_at < before,
      ),
    ).toBe(true);
    expect(both.total).toBe(both.rows.length);
    expect(both.rows.length).toBeGreaterThan(0);
  });

  it('an empty result says so: no rows, total 0, position 0, no cursors', async ({ ws, as, viewer }) => {
    expect(await as(viewer).console.operations({ workspace_id: ws.id, prefix: 'nothing:' })).toMatchObject({
      rows: [],
      total: 0,
      total_capped: false,
      first_position: 0,
      next_cursor: null,
      prev_cursor: null,
    });
  });

  it('finds an operation by its id, by the first characters the console shows, and by request id', async ({
    db,
    ws,
    other,
    as,
    viewer,
    stranger,
  }) => {
    const requestId = uniq('req-');
    const id = await insertOperation(db, ws, { at: at(200), state: 'completed', externalId: 'find:me', requestId });
    const byId = await as(viewer).console.operations({ workspace_id: ws.id, q: id });
    expect(byId.rows.map((r) => r.id)).toEqual([id]);
    expect(
      (await as(viewer).console.operations({ workspace_id: ws.id, q: ` ${id.slice(0, 8).toUpperCase()} ` })).rows.map(
        (r) => r.id,
      ),
    ).toContain(id);
    const byRequest = await as(viewer).console.operations({ workspace_id: ws.id, q: requestId });
    expect(byRequest.rows.map((r) => [r.id, r.request_id])).toEqual([[id, requestId]]);
    // A takeover's (or a failed attempt's) request id is in the operation's history: it finds the operation too.
    const takeover = `recovery-${randomUUID()}`;
    await db.run(
      "INSERT INTO creation_history (id, operation_id, at, kind, generation, lease_owner, detail, request_id) VALUES ($1, $2, $3, 'takeover', 1, 'p2', '{}', $4)",
      [randomUUID(), id, at(201), takeover],
    );
    expect((await as(viewer).console.operations({ workspace_id: ws.id, q: takeover })).rows.map((r) => r.id)).toEqual([
      id,
    ]);
    // Request ids compare exactly; another workspace's operations are never found.
    expect((await as(viewer).console.operations({ workspace_id: ws.id, q: requestId.toUpperCase() })).rows).toEqual([]);
    const elsewhere = await insertOperation(db, other, {
      at: at(0),
      state: 'completed',
      externalId: null,
      requestId: 'shared-req',
    });
    expect((await as(viewer).console.operations({ workspace_id: ws.id, q: 'shared-req' })).rows).toEqual([]);
    expect(
      (await as(stranger).console.operations({ workspace_id: other.id, q: 'shared-req' })).rows.map((r) => r.id),
    ).toEqual([elsewhere]);
  });

  it('refuses a cursor that is not one, an instant without its offset, and a workspace the actor cannot see', async ({
    ws,
    as,
    viewer,
    stranger,
  }) => {
    await expect(as(viewer).console.operations({ workspace_id: ws.id, cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    await expect(
      as(viewer).console.operations({ workspace_id: ws.id, from: '2026-11-01T00:00' }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(as(stranger).console.operations({ workspace_id: ws.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('names who began each operation', async ({ ws, as, viewer }) => {
    const page = await as(viewer).console.operations({ workspace_id: ws.id, limit: 5 });
    expect(page.rows[0]!.actor).toEqual({ id: 'system', kind: 'system', label: 'Tether (system)' });
  });
});

describe('the releases list (SPEC §13)', () => {
  let person: { id: string; email: string };
  let bot: { id: string; name: string };

  async function insertRelease(
    db: Db,
    ws: TestWorkspace,
    r: {
      actorId: string;
      externalId: string;
      status: 204 | 404;
      reason?: string | null;
      at: string;
      requestId?: string;
    },
  ) {
    const id = randomUUID();
    await db.run(
      `INSERT INTO release_operations (id, workspace_id, idempotency_key, request_hash, actor_id, source, external_id, holder_task_id, result_status,
         result_body, created_at, reason, request_id) VALUES ($1, $2, $3, 'h', $4, 'console', $5, NULL, $6, NULL, $7, $8, $9)`,
      [id, ws.id, randomUUID(), r.actorId, r.externalId, r.status, r.at, r.reason ?? null, r.requestId ?? null],
    );
    return id;
  }

  it.beforeAll(async ({ db, ws }) => {
    const now = new Date().toISOString();
    person = { id: randomUUID(), email: `${uniq('op')}@example.test` };
    bot = { id: randomUUID(), name: uniq('bot') };
    await db.run(
      'INSERT INTO users (id, email, name, password_hash, is_admin, created_at) VALUES ($1, $2, $3, NULL, $4, $5)',
      [person.id, person.email, 'Ada', false, now],
    );
    await db.run(
      'INSERT INTO api_tokens (id, name, secret_hash, scopes, created_by, created_at) VALUES ($1, $2, $3, $4, NULL, $5)',
      [bot.id, bot.name, 'x', 'identities:release', now],
    );
    const reasons = ['Duplicate from a replayed WEBHOOK', 'wrong project', null, 'Café duplicate'];
    for (let i = 0; i < 45; i++) {
      await insertRelease(db, ws, {
        actorId: i % 3 === 0 ? bot.id : person.id,
        externalId: `${i % 2 ? 'gh' : 'jira'}:${i}`,
        status: i % 5 === 4 ? 404 : 204,
        reason: reasons[i % reasons.length],
        at: at(i),
        requestId: `rel-${i}`,
      });
    }
  });

  it('pages every release with its total, naming who released (a person by name and email, a token by name)', async ({
    ws,
    as,
    viewer,
    allReleases,
    storedReleases,
  }) => {
    expect(await allReleases({})).toEqual(await storedReleases(''));
    const first = await as(viewer).console.releases({ workspace_id: ws.id, limit: 50 });
    expect(first.rows.find((r) => r.actor.id === person.id)!.actor).toEqual({
      id: person.id,
      kind: 'user',
      label: `Ada (${person.email})`,
    });
    expect(first.rows.find((r) => r.actor.id === bot.id)!.actor).toEqual({
      id: bot.id,
      kind: 'token',
      label: `token “${bot.name}”`,
    });
    expect(first.actors.map((a) => a.id).sort()).toEqual([person.id, bot.id].sort());
  });

  it('filters by result, actor, reason (with, without, containing) and external-id prefix', async ({
    allReleases,
    storedReleases,
  }) => {
    expect(await allReleases({ result: 'nothing_held_it' })).toEqual(await storedReleases('AND result_status = 404'));
    expect(await allReleases({ result: 'released' })).toEqual(await storedReleases('AND result_status = 204'));
    expect(await allReleases({ actor_id: bot.id })).toEqual(await storedReleases('AND actor_id = $2', [bot.id]));
    expect(await allReleases({ reason: 'without' })).toEqual(await storedReleases('AND reason IS NULL'));
    expect(await allReleases({ reason: 'with' })).toEqual(await storedReleases('AND reason IS NOT NULL'));
    // Containing: ASCII letters in any case, everything else as it is (the same on both dialects).
    const webhook = await storedReleases("AND reason = 'Duplicate from a replayed WEBHOOK'");
    expect(await allReleases({ reason_text: 'replayed webhook' })).toEqual(webhook);
    expect(await allReleases({ reason_text: 'DUPLICATE' })).toEqual(
      await storedReleases("AND reason IN ('Duplicate from a replayed WEBHOOK', 'Café duplicate')"),
    );
    expect(await allReleases({ reason_text: 'CAFÉ' })).toEqual([]);
    expect(await allReleases({ reason_text: 'café' })).toEqual(await storedReleases("AND reason = 'Café duplicate'"));
    expect(await allReleases({ prefix: 'gh:' })).toEqual(
      await storedReleases("AND external_id >= 'gh:' AND external_id < 'gh;'"),
    );
    expect(await allReleases({ prefix: 'gh:', actor_id: person.id, result: 'released' })).toEqual(
      await storedReleases(
        "AND external_id >= 'gh:' AND external_id < 'gh;' AND actor_id = $2 AND result_status = 204",
        [person.id],
      ),
    );
  });

  it('finds a release by its Idempotency-Key (any case) or its request id', async ({ db, ws, as, viewer }) => {
    const key = (await db.one<{ idempotency_key: unknown; id: unknown }>(
      "SELECT id, idempotency_key FROM release_operations WHERE request_id = 'rel-7'",
    ))!;
    expect(
      (
        await as(viewer).console.releases({ workspace_id: ws.id, q: String(key.idempotency_key).toUpperCase() })
      ).rows.map((r) => r.id),
    ).toEqual([String(key.id)]);
    expect(
      (await as(viewer).console.releases({ workspace_id: ws.id, q: 'rel-7' })).rows.map((r) => [r.id, r.request_id]),
    ).toEqual([[String(key.id), 'rel-7']]);
  });
});

describe('counts by id namespace (SPEC §13 overview)', () => {
  it('counts tasks holding an id, unsettled ones, and the last day of creates and releases per namespace', async ({
    db,
    as,
    viewer,
  }) => {
    const w = await makeWorkspace(db);
    const admin = userActor({ [w.id]: 'admin' });
    const now = new Date().toISOString();
    const task = async (externalId: string | null, settled: boolean) => {
      const id = randomUUID();
      const n = Math.floor(Math.random() * 1e9);
      await db.run(
        `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id, external_id_settled_at)
         VALUES ($1, $2, $3, $4, 't', $5, $6, $6, 1, $7, $8, $9)`,
        [
          id,
          w.id,
          n,
          `${w.prefix}-${n}`,
          w.steps[0]!.id,
          now,
          settled ? 'completed' : 'preparing',
          externalId,
          settled ? now : null,
        ],
      );
    };
    await task('jira:1', true);
    await task('jira:2', false);
    await task('jira:3', true);
    await task('gmail:abc:def', true);
    await task('no-namespace', true);
    await task(':leading', true);
    await task(null, true);
    await insertOperation(db, w, { at: now, state: 'aborted', externalId: 'gmail:x' });
    await insertOperation(db, w, { at: now, state: 'completed', externalId: 'gmail:y' });
    await insertOperation(db, w, {
      at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      state: 'aborted',
      externalId: 'gmail:old',
    });
    await db.run(
      `INSERT INTO release_operations (id, workspace_id, idempotency_key, request_hash, actor_id, source, external_id, result_status, created_at)
       VALUES ($1, $2, $3, 'h', 'system', 'cli', 'jira:9', 204, $4)`,
      [randomUUID(), w.id, randomUUID(), now],
    );
    const counts = await as(admin).console.namespaces({ workspace_id: w.id });
    expect(counts).toEqual([
      { namespace: 'jira', other: false, held: 3, unsettled: 1, creates: 0, aborted: 0, releases: 1, released: 1 },
      { namespace: 'gmail', other: false, held: 1, unsettled: 0, creates: 2, aborted: 1, releases: 0, released: 0 },
      { namespace: null, other: false, held: 2, unsettled: 0, creates: 0, aborted: 0, releases: 0, released: 0 },
    ]);
    await expect(as(viewer).console.namespaces({ workspace_id: w.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
