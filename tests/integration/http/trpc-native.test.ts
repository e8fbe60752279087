// The Node-native tRPC path (src/server/api/native-call.ts) answers the plain single query or mutation
// exactly as tRPC's standalone adapter does — same status, headers, content type and JSON body (SPEC §10:
// "Errors use tRPC codes ... with the same messages as REST") — and leaves every other request to the adapter.
// Each case sends the same request to two servers over one database, the product's and one that mounts tRPC's
// adapter alone, and compares the two answers; a bare server that only tries the native path tells which requests it
// takes. The path is built on tRPC internals, so this file is also the alarm that goes off when a tRPC upgrade
// changes what it relies on.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
import * as publicServer from '@trpc/server';
import * as unstableCore from '@trpc/server/unstable-core-do-not-import';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../../src/server/api/context';
import { NATIVE_CALL_VERIFIED_WITH, tryNativeCall } from '../../../src/server/api/native-call';
import { appRouter, type AppRouter } from '../../../src/server/api/root';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, startAdapterOnlyApi, trpc, type CallResult, type TestApi, useApiWorld } from '../../support/http';

let db: Db;
let api: TestApi;
/** The same API with the native path off: tRPC's adapter answers every call. */
let adapterApi: TestApi;
/** Answers 599 `declined` to every request the native path does not take. */
let probe: Server;
let probeUrl: string;
let ws: TestWorkspace;
let token: string;
let taskId: string;
let replayInput: Record<string, unknown>;
let cookie: string;
const email = `${uniq('native')}@example.test`;

useApiWorld((w) => {
  ({ db, api, ws, token } = w);
});
beforeAll(async () => {
  adapterApi = await startAdapterOnlyApi(db, api);
  probe = createServer((req, res) => {
    const opts = {
      router: appRouter,
      basePath: '/api/trpc/',
      maxBodySize: api.services.config.http.maxBodyBytes,
      createContext: (rq: typeof req, rs: typeof res) => createContext(api.services, rq, rs),
    };
    tryNativeCall(req, res, opts).then(
      (took) => {
        if (!took) res.writeHead(599).end('declined');
      },
      (err: unknown) => res.writeHead(598).end(String(err)),
    );
  });
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  probeUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
  await createUser(api.services.store, { email, password: 'password-1', role: 'operator', workspaceIds: [ws.id] });
  const login = await call(api.url, 'POST', '/api/trpc/session.login', { body: { email, password: 'password-1' } });
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  replayInput = { workspace_id: ws.id, external_id: uniq('replay-'), title: 'Replayed' };
  const created = await trpc(api.url, 'mutation', 'task.create', replayInput, token);
  taskId = (created.json as { result: { data: { id: string } } }).result.data.id;
});

interface Answer {
  status: number;
  headers: Record<string, string>;
  json: unknown;
  text: string;
}

/** What a client can observe, minus what differs between any two responses (date, a fresh session token, the
 *  generated request id — present on both, and a UUID). */
function observe(r: CallResult): Answer {
  const headers: Record<string, string> = {};
  r.headers.forEach((v, k) => {
    if (k === 'date') return;
    if (k === 'x-request-id') headers[k] = /^[0-9a-f-]{36}$/.test(v) ? '<uuid>' : v;
    else headers[k] = k === 'set-cookie' ? v.replace(/tether_session=[^;]*/, 'tether_session=<token>') : v;
  });
  return { status: r.status, headers, json: r.json, text: r.json === undefined ? r.text : '' };
}

afterAll(async () => {
  await adapterApi?.close();
  await new Promise((ok) => probe?.close(ok));
});

/** A request, sent to the server at `base`. */
type Send = (base: string) => Promise<CallResult>;

/** Sends the request to the native-path server, then to the adapter-only one; and tells whether the native path takes it. */
async function bothWays(send: Send) {
  const fast = observe(await send(api.url));
  const adapter = observe(await send(adapterApi.url));
  const servedNatively = (await send(probeUrl)).status !== 599;
  return { fast, adapter, servedNatively };
}

const get =
  (proc: string, query: string, headers: Record<string, string> = {}): Send =>
  (base) =>
    call(base, 'GET', `/api/trpc/${proc}${query}`, { token, headers });
const input = (v: unknown) => `?input=${encodeURIComponent(JSON.stringify(v))}`;
const post =
  (proc: string, rawBody: string, headers: Record<string, string> = {}, withToken = true): Send =>
  (base) =>
    call(base, 'POST', `/api/trpc/${proc}`, { token: withToken ? token : undefined, rawBody, headers });

/** A POST with a body `call` cannot send: raw bytes, or a stream (no Content-Length: Transfer-Encoding: chunked). */
const postRaw =
  (proc: string, body: () => Buffer | ReadableStream<Uint8Array>): Send =>
  async (base) => {
    const res = await fetch(`${base}/api/trpc/${proc}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body(),
      duplex: 'half',
    } as RequestInit);
    const text = await res.text();
    return { status: res.status, text, json: JSON.parse(text) as unknown, headers: res.headers };
  };

/** A GET with a Host header of its own (fetch sets Host itself), through node:http. */
const getWithHost =
  (path: string, host: string): Send =>
  (base) =>
    new Promise<CallResult>((resolve, reject) => {
      const { hostname, port } = new URL(base);
      const req = httpRequest(
        { hostname, port, path, method: 'GET', headers: { host, authorization: `Bearer ${token}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString();
            const headers = new Headers();
            for (const [k, v] of Object.entries(res.headers))
              if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode!, text, json, headers });
          });
        },
      );
      req.on('error', reject);
      req.end();
    });

function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = Buffer.from(text);
  return new ReadableStream<Uint8Array>({
    start(c) {
      for (let i = 0; i < bytes.length; i += 65536) c.enqueue(bytes.subarray(i, i + 65536));
      c.close();
    },
  });
}

const oversized = () => JSON.stringify({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(1024 * 1024 + 10) });

// [what, request, expected status, answered natively?]
const cases: Array<[string, () => Send, number, boolean]> = [
  ['a successful query (task.get)', () => get('task.get', input({ id: taskId })), 200, true],
  [
    'a query without input (session.me, anonymous)',
    () => (base) => call(base, 'GET', '/api/trpc/session.me'),
    200,
    true,
  ],
  [
    'a successful mutation replay (task.create, deduplicated)',
    () => post('task.create', JSON.stringify(replayInput)),
    200,
    true,
  ],
  [
    'JSON with a charset parameter',
    () => post('task.create', JSON.stringify(replayInput), { 'content-type': 'application/json; charset=utf-8' }),
    200,
    true,
  ],
  [
    'a zod input validation error',
    () => post('task.create', JSON.stringify({ workspace_id: ws.id, title: 42 })),
    400,
    true,
  ],
  // A target with escapes or an unusual Host is parsed as a URL, as the adapter parses it; a plain one is split by hand.
  ['a procedure path with escapes (task%2Eget)', () => get('task%2Eget', input({ id: taskId })), 200, true],
  [
    'a query string with characters a URL escapes',
    () => get('task.get', `${input({ id: taskId })}&note=a"b<c>'d`),
    200,
    true,
  ],
  [
    'an unusual but valid Host',
    () => getWithHost(`/api/trpc/task.get${input({ id: taskId })}`, 'Tether.Example'),
    200,
    true,
  ],
  [
    'a Host a URL cannot have (the adapter answers it)',
    () => getWithHost(`/api/trpc/task.get${input({ id: taskId })}`, 'bad host'),
    400,
    false,
  ],
  ['a DomainError (task not found)', () => get('task.get', input({ id: 'no-such-task' })), 404, true],
  [
    'no credentials (401 from the procedure)',
    () => post('task.create', JSON.stringify(replayInput), {}, false),
    401,
    true,
  ],
  [
    'a wrong password (DomainError from session.login)',
    () => post('session.login', JSON.stringify({ email, password: 'nope-nope' }), {}, false),
    401,
    true,
  ],
  [
    'a cookie mutation without its CSRF header (403 from the context)',
    () => post('session.logout', '{}', { cookie }, false),
    403,
    true,
  ],
  ['invalid JSON in ?input=', () => get('task.get', '?input=%7Bbad'), 400, true],
  ['an invalid JSON body', () => post('task.create', '{"title": '), 400, true],
  ['an empty body', () => post('task.create', ''), 400, true],
  // Both paths refuse bytes that are not UTF-8 as REST does (they used to repair them to U+FFFD).
  [
    'a body that is not UTF-8',
    () => postRaw('session.login', () => Buffer.from('{"email":"a\xff@x.test","password":"password-1"}', 'latin1')),
    400,
    true,
  ],
  [
    'a create whose external_id is not UTF-8',
    () =>
      postRaw('task.create', () =>
        Buffer.from(`{"workspace_id":"${ws.id}","external_id":"u8-\xfe","title":"T"}`, 'latin1'),
      ),
    400,
    true,
  ],
  [
    '?input= whose escapes are not UTF-8',
    () =>
      get(
        'task.byExternalId',
        `?input=${encodeURIComponent(JSON.stringify({ workspace_id: ws.id, external_id: 'x' })).replace('x', '%ED%A0%80')}`,
      ),
    400,
    true,
  ],
  ['an oversized body with Content-Length (413)', () => post('task.create', oversized()), 413, true],
  ['an oversized chunked body (413)', () => postRaw('task.create', () => streamOf(oversized())), 413, true],
  ['an unknown procedure', () => post('task.nope', '{}'), 404, false],
  [
    'a batched call',
    () =>
      get(
        'task.get,task.get',
        `?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { id: taskId }, 1: { id: 'none' } }))}`,
      ),
    207,
    false,
  ],
  ['a GET to a mutation', () => get('task.create', input(replayInput)), 405, false],
  ['a POST to a query', () => post('task.get', JSON.stringify({ id: taskId })), 405, false],
  [
    'a body that is not JSON (text/plain)',
    () => post('task.create', JSON.stringify(replayInput), { 'content-type': 'text/plain' }),
    415,
    false,
  ],
  [
    'an unbatched call asking for application/jsonl',
    () => get('task.get', input({ id: taskId }), { accept: 'application/jsonl' }),
    400,
    false,
  ],
  [
    'a HEAD request',
    () => (base) => call(base, 'HEAD', `/api/trpc/task.get${input({ id: taskId })}`, { token }),
    204,
    false,
  ],
];

describe('tRPC native path answers exactly like the adapter', () => {
  it.each(cases)('%s', async (_what, request, status, native) => {
    const { fast, adapter, servedNatively } = await bothWays(request());
    expect(servedNatively).toBe(native);
    expect(adapter.status).toBe(status);
    expect(fast).toEqual(adapter);
  });

  it('a created task (task.create, Created path) has the same body apart from its own id and times', async () => {
    const volatile = new Set(['id', 'identifier', 'external_id', 'created_at', 'updated_at']);
    const scrub = (a: Answer) =>
      JSON.parse(JSON.stringify(a.json), (k, v: unknown) => (volatile.has(k) ? '<volatile>' : v)) as unknown;
    const { fast, adapter, servedNatively } = await bothWays((base) =>
      trpc(
        base,
        'mutation',
        'task.create',
        { workspace_id: ws.id, external_id: uniq('fresh-'), title: 'Fresh' },
        token,
      ),
    );
    expect(servedNatively).toBe(true);
    expect(adapter.status).toBe(200);
    expect((fast.json as { result: { data: { deduplicated: boolean } } }).result.data.deduplicated).toBe(false);
    expect({ ...fast, json: scrub(fast) }).toEqual({ ...adapter, json: scrub(adapter) });
  });
});

/** One HTTP exchange as @trpc/client made it: what went out and the answer, bytes and all. */
interface Exchange {
  method: string;
  path: string;
  status: number;
  /** Every response header but the two that differ between any two answers (date, the generated request id). */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * A typed client on `base` with one link kind, recording each exchange (its `fetch` is the platform's, wrapped).
 * Returns what a caller sees — the data, or the TRPCClientError's message, `data` and shape — and the exchanges.
 */
function typedClient(base: string, link: 'httpLink' | 'httpBatchLink', bearer: string | undefined) {
  const exchanges: Exchange[] = [];
  const recordingFetch = async (url: URL | RequestInfo, init?: RequestInit) => {
    const res = await fetch(url, init);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (k !== 'date' && k !== 'x-request-id') headers[k] = v;
    });
    const target = new URL(String(url));
    exchanges.push({
      method: init?.method ?? 'GET',
      path: target.pathname + target.search,
      status: res.status,
      headers,
      body: Buffer.from(await res.clone().arrayBuffer()),
    });
    return res;
  };
  const options = {
    url: `${base}/api/trpc`,
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    fetch: recordingFetch,
  };
  const client = createTRPCClient<AppRouter>({
    links: [link === 'httpLink' ? httpLink(options) : httpBatchLink(options)],
  });
  const outcome = async (run: (c: typeof client) => Promise<unknown>) => {
    try {
      return { data: await run(client) };
    } catch (err) {
      if (!(err instanceof TRPCClientError)) throw err;
      return { error: { message: err.message, data: err.data as unknown, shape: err.shape as unknown } };
    }
  };
  return { exchanges, outcome };
}

type Typed = ReturnType<typeof createTRPCClient<AppRouter>>;
// [what, the call, expected status, anonymous?]
const typedCases: Array<[string, (c: Typed) => Promise<unknown>, number, boolean]> = [
  ['a query (task.get)', (c) => c.task.get.query({ id: taskId }), 200, false],
  [
    'a query by identity (task.byExternalId)',
    (c) => c.task.byExternalId.query({ workspace_id: ws.id, external_id: replayInput.external_id as string }),
    200,
    false,
  ],
  [
    'a mutation that finds its task (task.create, Found)',
    (c) => c.task.create.mutate(replayInput as Parameters<Typed['task']['create']['mutate']>[0]),
    200,
    false,
  ],
  ['a domain error (task.get of no task: task_not_found)', (c) => c.task.get.query({ id: 'no-such-task' }), 404, false],
  [
    'an input-validation error from the procedure input (task.get with a number id)',
    (c) => c.task.get.query({ id: 42 as unknown as string }),
    400,
    false,
  ],
  [
    'an input-validation error from the domain (task.create with a number title)',
    (c) => c.task.create.mutate({ workspace_id: ws.id, title: 42 as unknown as string }),
    400,
    false,
  ],
  [
    'a refusal before the procedure (no credentials: 401)',
    (c) => c.task.create.mutate(replayInput as Parameters<Typed['task']['create']['mutate']>[0]),
    401,
    true,
  ],
  ['a public query without input (session.me, anonymous)', (c) => c.session.me.query(), 200, true],
];

describe("@trpc/client sees the same answers from the native path as from tRPC's adapter", () => {
  for (const link of ['httpLink', 'httpBatchLink'] as const) {
    it.each(typedCases)(`${link}: %s`, async (_what, run, status, anonymous) => {
      const bearer = anonymous ? undefined : token;
      const fast = typedClient(api.url, link, bearer);
      const adapter = typedClient(adapterApi.url, link, bearer);
      const fastOutcome = await fast.outcome(run);
      const adapterOutcome = await adapter.outcome(run);
      // What the typed client hands its caller: the same data, or the same error with the same data and shape.
      expect(fastOutcome).toEqual(adapterOutcome);
      // And on the wire: the same request, status, headers (content-type among them) and body, byte for byte.
      expect(fast.exchanges).toHaveLength(1);
      expect(fast.exchanges).toEqual(adapter.exchanges);
      const [exchange] = fast.exchanges;
      expect(exchange!.headers['content-type']).toBe('application/json');
      // A batch of one answers 200 or 207 per call; an unbatched call carries the call's own status.
      if (link === 'httpLink') expect(exchange!.status).toBe(status);
      else expect((JSON.parse(exchange!.body.toString()) as unknown[])[0]).toBeDefined();
    });
  }

  it("httpLink calls are the native path's, httpBatchLink calls the adapter's", async () => {
    for (const [link, native] of [
      ['httpLink', true],
      ['httpBatchLink', false],
    ] as const) {
      const probed = typedClient(probeUrl, link, token);
      await probed.outcome((c) => c.task.get.query({ id: taskId }));
      expect(probed.exchanges[0]!.status !== 599, link).toBe(native);
    }
  });
});

describe('what the native path relies on in @trpc/server (a tRPC upgrade must fail here, loudly)', () => {
  it(`is the @trpc/server version the native path was checked against (${NATIVE_CALL_VERIFIED_WITH})`, () => {
    const require = createRequire(import.meta.url);
    const installed = (
      JSON.parse(readFileSync(require.resolve('@trpc/server/package.json'), 'utf8')) as { version: string }
    ).version;
    // On a tRPC upgrade: re-read resolveResponse.ts of the new version against src/server/api/native-call.ts, make this
    // whole file pass, re-measure it (npm run bench -- --quick --only=matrix --series=tRPC: keep it only if tRPC Found
    // is still >= 1.3x the adapter-only server), then move NATIVE_CALL_VERIFIED_WITH.
    expect(installed, 'src/server/api/native-call.ts mirrors tRPC internals: re-verify it for this tRPC version').toBe(
      NATIVE_CALL_VERIFIED_WITH,
    );
  });

  it('still finds the internal and public pieces it calls', () => {
    for (const name of ['getProcedureAtPath', 'isAsyncIterable', 'isObject', 'isPromise'] as const)
      expect(typeof unstableCore[name], name).toBe('function');
    expect(unstableCore.middlewareMarker, 'middlewareMarker').toBeDefined();
    // The procedure it calls step by step (callProcedure): its middlewares, the resolver last, as createResolver builds it.
    const def = (
      appRouter._def.procedures as unknown as Record<string, { _def: { middlewares?: Array<{ name: string }> } }>
    )['task.create']!._def;
    expect(def.middlewares?.map((m) => m.name)).toEqual([
      'requireActor',
      'inputValidatorMiddleware',
      'resolveMiddleware',
    ]);
    for (const name of ['getErrorShape', 'getTRPCErrorFromUnknown', 'transformTRPCResponse'] as const)
      expect(typeof publicServer[name], name).toBe('function');
    // The router shape it reads: the root config (transformer, error formatter) and a procedure's type.
    expect(appRouter._def._config.transformer.input.deserialize).toBeTypeOf('function');
    // Answers skip transformTRPCResponse when the router's transformer is tRPC's default one (its serialize is the
    // identity): the check is by identity with the object tRPC exports.
    expect(appRouter._def._config.transformer).toBe(unstableCore.defaultTransformer);
    expect(appRouter._def.procedures).toHaveProperty(['task.get']);
  });
});
