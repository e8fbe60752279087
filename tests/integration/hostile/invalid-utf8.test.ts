// Bytes that are not UTF-8 are refused on every surface, never "repaired" to U+FFFD. tRPC decoded
// like Fetch (`Request.json()`), so `"u8-1-\xFF"` created a task holding `u8-1-\uFFFD` and `"u8-1-\xFE"` then came
// back `deduplicated:true` — two identities collapsed into one task (SPEC §2.1 keeps ids byte for byte). REST and
// MCP already answered 400 `invalid payload`; tRPC now says the same, on the native single-call path and on the
// adapter path (batches), for bodies and for `?input=` query strings; and REST query strings follow the same rule.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startAdapterOnlyApi, type CallResult, type TestApi, useApiWorld } from '../../support/http';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let mcpToken: string;
/** The same API with tRPC's native single-call path off (the adapter answers every call). */
let adapterApi: TestApi;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  mcpToken = await makeToken(db, [ws.id]);
  adapterApi = await startAdapterOnlyApi(db, api);
});
afterAll(() => adapterApi?.close());

/** The server whose tRPC path is native (the default) or the adapter (tests/integration/http/trpc-native.test.ts
 *  shows which requests each one takes). */
const serverFor = (fast: boolean) => (fast ? api.url : adapterApi.url);

/** The byte sequences the probe used: not UTF-8 at all, an overlong NUL, a UTF-16 surrogate. */
const BAD = [Buffer.from([0xff]), Buffer.from([0xfe]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80])];

/** `{"workspace_id":…,"external_id":"<prefix><bad bytes>","title":"T"}` as raw bytes. */
function createBody(prefix: string, bad: Buffer, wrap: (json: string) => string = (j) => j): Buffer {
  const [head, tail] = wrap(`{"workspace_id":"${ws.id}","external_id":"${prefix}@@","title":"T"}`).split('@@');
  return Buffer.concat([Buffer.from(head!), bad, Buffer.from(tail!)]);
}

async function postBytes(path: string, body: Buffer, base = api.url): Promise<CallResult> {
  const res = await call(base, 'POST', path, { token, rawBody: new Uint8Array(body) });
  if (res.json === undefined) throw new Error(`not JSON: ${res.text}`);
  return res;
}

const TRPC_INVALID = {
  message: 'invalid payload',
  code: -32600,
  data: { code: 'BAD_REQUEST', httpStatus: 400, domainCode: 'invalid_payload' },
};

/** No task may hold an identity that ends in U+FFFD: that is what a repaired byte looks like. */
async function repairedIdentities(): Promise<number> {
  const rows = await db.query<{ external_id: string }>(
    'SELECT external_id FROM tasks WHERE workspace_id = $1 AND external_id IS NOT NULL',
    [ws.id],
  );
  return rows.filter((r) => r.external_id.includes('\ufffd')).length;
}

describe('tRPC refuses a body that is not UTF-8 (it used to store U+FFFD and collapse identities)', () => {
  for (const fast of [true, false]) {
    const path = fast ? 'the native single-call path' : 'the adapter path';
    it(`task.create over ${path}: 400 invalid payload for each byte sequence, nothing written`, async () => {
      for (const bad of BAD) {
        const before = await tableCounts(db);
        const res = await postBytes('/api/trpc/task.create', createBody('u8-1-', bad), serverFor(fast));
        expect(res.status, bad.toString('hex')).toBe(400);
        expect((res.json as { error: unknown }).error).toMatchObject({
          ...TRPC_INVALID,
          data: { ...TRPC_INVALID.data, path: 'task.create' },
        });
        expect(await tableCounts(db)).toEqual(before);
      }
      expect(await repairedIdentities()).toBe(0);
    });
  }

  it('?batch=1 (httpBatchLink): every call of the batch is refused, nothing written', async () => {
    for (const bad of BAD) {
      const before = await tableCounts(db);
      const body = createBody('u8-batch-', bad, (j) => `{"0":${j},"1":${j}}`);
      const res = await postBytes('/api/trpc/task.create,task.create?batch=1', body);
      expect(res.status).toBe(400);
      const answers = res.json as Array<{ error: unknown }>;
      expect(answers).toHaveLength(2);
      for (const a of answers) expect(a.error).toMatchObject(TRPC_INVALID);
      expect(await tableCounts(db)).toEqual(before);
    }
    expect(await repairedIdentities()).toBe(0);
  });

  it('two ids that differ only in their bad byte stay two refusals, never one task (the reported collapse)', async () => {
    const first = await postBytes('/api/trpc/task.create', createBody('u8-pair-', Buffer.from([0xff])));
    const second = await postBytes('/api/trpc/task.create', createBody('u8-pair-', Buffer.from([0xfe])));
    expect([first.status, second.status]).toEqual([400, 400]);
    expect(await db.query("SELECT id FROM tasks WHERE external_id LIKE 'u8-pair-%'")).toEqual([]);
  });
});

describe('query strings whose escapes are not UTF-8', () => {
  const lookupInput = (ext: string) =>
    encodeURIComponent(JSON.stringify({ workspace_id: ws.id, external_id: ext })).replace('%40%40', '%FE');

  it('tRPC ?input= (native and adapter) and ?batch=1&input= are 400 invalid payload', async () => {
    const q = lookupInput('u8-q-@@');
    for (const fast of [true, false]) {
      const res = await call(serverFor(fast), 'GET', `/api/trpc/task.byExternalId?input=${q}`, { token });
      expect(res.status).toBe(400);
      expect((res.json as { error: { message: string; data: object } }).error).toMatchObject({
        message: 'invalid payload: the query string is not valid UTF-8',
        data: { code: 'BAD_REQUEST', domainCode: 'invalid_payload' },
      });
    }
    const batch = await call(
      api.url,
      'GET',
      `/api/trpc/task.byExternalId?batch=1&input=${encodeURIComponent('{"0":').concat(q, '}')}`,
      { token },
    );
    expect(batch.status).toBe(400);
    expect((batch.json as Array<{ error: { message: string } }>)[0]!.error.message).toBe(
      'invalid payload: the query string is not valid UTF-8',
    );
  });

  it('REST lookup ?external_id=…%FE no longer finds the task that holds …U+FFFD', async () => {
    const ext = uniq('u8-rest-');
    // A real U+FFFD, sent as well-formed UTF-8: a legitimate identity of its own.
    const created = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: `${ext}\ufffd`, title: 'T' },
    });
    expect(created.status).toBe(200);
    const good = await call(
      api.url,
      'GET',
      `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${encodeURIComponent(`${ext}\ufffd`)}`,
      { token },
    );
    expect(good.status).toBe(200);
    for (const bad of ['%FE', '%FF', '%C0%80', '%ED%A0%80']) {
      const before = await tableCounts(db);
      const lookup = await call(
        api.url,
        'GET',
        `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}${bad}`,
        { token },
      );
      expect(lookup.status, bad).toBe(400);
      expect(lookup.json).toEqual({ error: 'invalid payload: the query string is not valid UTF-8' });
      const release = await call(
        api.url,
        'DELETE',
        `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}${bad}`,
        {
          token,
          headers: { 'idempotency-key': crypto.randomUUID() },
        },
      );
      expect(release.status, bad).toBe(400);
      expect(await tableCounts(db)).toEqual(before);
    }
  });
});

describe('the same bytes on REST and MCP (unchanged: the rule tRPC now follows)', () => {
  let mcp: McpTestClient;
  beforeAll(async () => {
    mcp = await connectMcp(api.url, mcpToken);
  });
  afterAll(async () => mcp?.close());

  it('REST POST /api/v1/tasks is 400 invalid payload and MCP is a 400 parse error, nothing written', async () => {
    for (const bad of BAD) {
      const before = await tableCounts(db);
      const rest = await postBytes('/api/v1/tasks', createBody('u8-r-', bad));
      expect(rest.status).toBe(400);
      expect(rest.json).toEqual({ error: 'invalid payload' });
      const rpc = createBody(
        'u8-m-',
        bad,
        (j) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":${j}}}`,
      );
      const res = await fetch(`${api.url}/api/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${mcpToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: new Uint8Array(rpc),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: { message: 'Parse error: invalid payload' } });
      expect(await tableCounts(db)).toEqual(before);
    }
  });
});
