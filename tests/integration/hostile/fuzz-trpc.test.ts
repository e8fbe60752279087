// Hostile input on the tRPC surface (SPEC §10): task.create, task.byExternalId, task.releaseExternalId and
// task.update over real HTTP with hostile inputs → never a 5xx, never internal detail, no row on a refusal.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import {
  call,
  makeToken,
  startAdapterOnlyApi,
  trpc,
  type CallResult,
  type TestApi,
  useApiWorld,
} from '../../support/http';
import {
  cursorAccepted,
  cursorText,
  escapeBytes,
  expectClean,
  fuzzRuns,
  hostileCreateBody,
  hostileRawBody,
  hostileValue,
  invalidUtf8,
  oddString,
  pageNumber,
  probe as probeDb,
  spliceBytes,
  tableCounts,
  wholeIn,
} from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let taskId: string;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  const r = await trpc(
    api.url,
    'mutation',
    'task.create',
    { workspace_id: ws.id, external_id: uniq('tz-'), title: 'Target' },
    token,
  );
  taskId = (r.json as { result: { data: { id: string } } }).result.data.id;
});

const probe = (send: () => Promise<CallResult>, what: string, allow?: (status: number) => string[]) =>
  probeDb(db, send, what, allow);

describe('tRPC task.create under hostile input', () => {
  it('arbitrary inputs: no 5xx, no leak, no row on a refusal', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(hostileCreateBody({ workspaceId: ws.id, stepId: ws.steps[0]!.id }), async (input) => {
        const res = await probe(
          () => trpc(api.url, 'mutation', 'task.create', input, token),
          `create ${JSON.stringify(input).slice(0, 200)}`,
        );
        statuses.add(res.status);
      }),
      { numRuns: fuzzRuns(250) },
    );
    expect(statuses).toContain(200);
    expect(statuses).toContain(400);
  });

  it('raw bodies that are not JSON are a clean 400', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRawBody, async (rawBody) => {
        await probe(
          () => call(api.url, 'POST', '/api/trpc/task.create', { token, rawBody }),
          `raw ${rawBody.slice(0, 80)}`,
        );
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('refusals carry the error table words, not tRPC or zod internals', async () => {
    const res = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, title: 42 }, token);
    expect(res.status).toBe(400);
    const err = (res.json as { error: { message: string; data: Record<string, unknown> } }).error;
    expect(err.message).toBe('title is required');
    expect(err.data).not.toHaveProperty('stack');
  });
});

describe('tRPC lookup, release and update under hostile input', () => {
  it('task.byExternalId (GET ?input=) never 5xx and never writes', async () => {
    const input = fc.oneof(
      fc.record(
        { workspace_id: fc.oneof(fc.constant(ws.id), hostileValue), external_id: fc.oneof(oddString, hostileValue) },
        { requiredKeys: [] },
      ),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const before = await tableCounts(db);
        const res = await trpc(api.url, 'query', 'task.byExternalId', i, token);
        expectClean(res, `byExternalId ${JSON.stringify(i).slice(0, 200)}`);
        expect(await tableCounts(db)).toEqual(before);
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('a query string that is not JSON, or is repeated, is a clean 400', async () => {
    for (const q of [
      'input=%7B',
      'input=%00',
      'input=%ZZ',
      'input=1&input=2',
      'input=' + 'a'.repeat(8000),
      'batch=1&input=%7B%7D',
    ]) {
      const res = await call(api.url, 'GET', `/api/trpc/task.byExternalId?${q}`, { token });
      expectClean(res, q.slice(0, 60));
    }
  });

  it('task.releaseExternalId never 5xx; refusals store nothing but a 404 replay record', async () => {
    const input = fc.record(
      {
        workspace_id: fc.oneof(fc.constant(ws.id), hostileValue),
        external_id: fc.oneof(oddString, hostileValue),
        idempotency_key: fc.oneof(fc.uuid().map(String), hostileValue),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const before = await tableCounts(db);
        const res = await trpc(api.url, 'mutation', 'task.releaseExternalId', i, token);
        expectClean(res, `release ${JSON.stringify(i).slice(0, 200)}`);
        const after = await tableCounts(db);
        if (res.status >= 400) {
          // "Nothing holds it" is a NOT_FOUND error (SPEC §10) whose result is stored for replay (SPEC §7): at most
          // that one row; every other refusal writes nothing.
          const stored = after.release_operations! - before.release_operations!;
          if (res.status === 404) expect([0, 1]).toContain(stored);
          else expect(stored).toBe(0);
          expect({ ...after, release_operations: 0 }).toEqual({ ...before, release_operations: 0 });
        } else {
          // A fuzzed id can name an identity an earlier property created ("key"): releasing it is a real release,
          // one revision and one `task.updated` event (SPEC §7).
          expect((res.json as { result: { data: { released: boolean } } }).result.data.released).toBe(true);
          expect({ ...after, release_operations: 0 }).toEqual({
            ...before,
            release_operations: 0,
            task_revisions: before.task_revisions! + 1,
            events: before.events! + 1,
          });
        }
      }),
      { numRuns: fuzzRuns(150) },
    );
  });

  it('task.update with arbitrary patches: no 5xx, no row on a refusal, identity untouched', async () => {
    const input = fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.constant(taskId), hostileValue),
          patch: fc.oneof(
            fc.record(
              { title: hostileValue, description: hostileValue, step_id: hostileValue, external_id: oddString },
              { requiredKeys: [] },
            ),
            hostileValue,
          ),
        },
        { requiredKeys: [] },
      ),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        await probe(
          () => trpc(api.url, 'mutation', 'task.update', i, token),
          `update ${JSON.stringify(i).slice(0, 200)}`,
        );
      }),
      { numRuns: fuzzRuns(200) },
    );
    const after = await trpc(api.url, 'query', 'task.get', { id: taskId }, token);
    expect((after.json as { result: { data: { external_id?: string } } }).result.data.external_id).toMatch(/^tz-/);
  });
});

describe('bytes that are not UTF-8, list cursors, page limits', () => {
  let adminToken: string;
  let webhookId: string;
  /** The same API with tRPC's native single-call path off (the adapter answers every call). */
  let adapterApi: TestApi;
  beforeAll(async () => {
    adapterApi = await startAdapterOnlyApi(db, api);
    adminToken = await makeToken(db, [ws.id], ['tasks:read', 'admin']);
    const hook = await trpc(
      api.url,
      'mutation',
      'event.createWebhook',
      { workspace_id: ws.id, url: 'https://hooks.invalid/h' },
      adminToken,
    );
    webhookId = (hook.json as { result: { data: { webhook: { id: string } } } }).result.data.webhook.id;
  });

  afterAll(() => adapterApi?.close());

  const postBytes = async (path: string, body: Buffer, base = api.url): Promise<CallResult> => {
    const res = await fetch(`${base}/api/trpc/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: new Uint8Array(body),
    });
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as unknown, headers: res.headers };
  };
  /** Every error of a single or batched answer. */
  const errorsOf = (json: unknown) =>
    (Array.isArray(json) ? json : [json]).map((a) => (a as { error?: { message: string } }).error);

  it('task.create bodies with bytes that are not UTF-8 (native, adapter, ?batch=1): 400 invalid payload, nothing written', async () => {
    const mode = fc.constantFrom('native', 'adapter', 'batch');
    await fc.assert(
      fc.asyncProperty(invalidUtf8, mode, fc.constantFrom('external_id', 'title'), async (bad, m, name) => {
        const one = JSON.stringify({ workspace_id: ws.id, external_id: uniq('u8t-'), title: 'T', [name]: 'x@@' });
        const path = m === 'batch' ? 'task.create,task.create?batch=1' : 'task.create';
        const body =
          m === 'batch' ? spliceBytes(`{"0":${one},"1":${one.replace('@@', '')}}`, bad) : spliceBytes(one, bad);
        const base = m === 'adapter' ? adapterApi.url : api.url;
        const res = await probe(() => postBytes(path, body, base), `${m} ${bad.toString('hex')} in ${name}`);
        expect(res.status).toBe(400);
        for (const e of errorsOf(res.json)) expect(e?.message).toBe('invalid payload');
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('?input= whose escapes are not UTF-8 (single and ?batch=1): 400 invalid payload', async () => {
    await fc.assert(
      fc.asyncProperty(invalidUtf8, fc.boolean(), async (bad, batch) => {
        const input = encodeURIComponent(JSON.stringify({ workspace_id: ws.id, external_id: 'x@@' })).replace(
          '%40%40',
          escapeBytes(bad),
        );
        const q = batch ? `?batch=1&input=${encodeURIComponent('{"0":')}${input}}` : `?input=${input}`;
        const res = await call(api.url, 'GET', `/api/trpc/task.byExternalId${q}`, { token });
        expectClean(res, q);
        expect(res.status).toBe(400);
        for (const e of errorsOf(res.json))
          expect(e?.message).toBe('invalid payload: the query string is not valid UTF-8');
      }),
      { numRuns: fuzzRuns(60) },
    );
  });

  it('task.list cursor: a next_cursor value is a page, anything else (any type) the one 400', async () => {
    const cursor = fc.oneof(
      { weight: 4, arbitrary: cursorText },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
      fc.constantFrom(null, 5, 0, 1.5, true, [], {}),
    );
    await fc.assert(
      fc.asyncProperty(cursor, async (c) => {
        const res = await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id, cursor: c }, token);
        expectClean(res, `cursor ${JSON.stringify(c)?.slice(0, 80)}`);
        const ok = c === null || c === undefined || (typeof c === 'string' && cursorAccepted(c));
        expect(res.status, JSON.stringify(c)?.slice(0, 80)).toBe(ok ? 200 : 400);
        if (!ok)
          expect(errorsOf(res.json)[0]?.message).toMatch(/^invalid request: cursor: expected a next_cursor value/);
      }),
      { numRuns: fuzzRuns(150) },
    );
  });

  it('limit and after on task.list, event.list and event.deliveries: the shared page rule, never a 5xx', async () => {
    const list = fc.constantFrom(
      { proc: 'task.list', name: 'limit', min: 1, max: 200, admin: false },
      { proc: 'event.list', name: 'limit', min: 1, max: 500, admin: false },
      { proc: 'event.list', name: 'after', min: 0, max: Number.MAX_SAFE_INTEGER, admin: false },
      { proc: 'event.deliveries', name: 'limit', min: 1, max: 500, admin: true },
      { proc: 'event.deliveries', name: 'after', min: 0, max: Number.MAX_SAFE_INTEGER, admin: true },
    );
    await fc.assert(
      fc.asyncProperty(list, pageNumber, async (l, v) => {
        const input = { workspace_id: ws.id, ...(l.admin ? { webhook_id: webhookId } : {}), [l.name]: v };
        const res = await trpc(api.url, 'query', l.proc, input, l.admin ? adminToken : token);
        expectClean(res, `${l.proc} ${l.name}=${v}`);
        if (wholeIn(v, l.min, l.max)) expect(res.status, `${l.proc} ${l.name}=${v}`).toBe(200);
        else {
          expect(res.status, `${l.proc} ${l.name}=${v}`).toBe(400);
          expect(errorsOf(res.json)[0]?.message).toBe(
            `invalid request: ${l.name}: expected a whole number from ${l.min} to ${l.max}`,
          );
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
