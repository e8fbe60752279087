// The real HTTP server (custom server, API only) over a test database, and a small client for it.
import { connect } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import type { Repositories } from '../../src/server/db/store';
import type { Db } from '../../src/server/db/types';
import { createApiToken } from '../../src/server/domain/tokens/api-tokens';
import { createTrpcAdapter } from '../../src/server/api/http';
import { apiRoutes } from '../../src/server/app';
import { startServer, type RunningServer } from '../../src/server/main';
import type { Services } from '../../src/server/services';
import { freshDb, storeFor } from './db';
import { makeWorkspace, testServices, type TestWorkspace } from './fixtures';
import { checkRestResponse } from './openapi-check';

export interface TestApi {
  url: string;
  services: Services;
  server: RunningServer;
  close(): Promise<void>;
}

export async function startTestApi(db: Db, overrides: Partial<Services> = {}): Promise<TestApi> {
  const services = await testServices(db, overrides);
  const server = await startServer({ pages: false, services, port: 0, host: '127.0.0.1', log: () => {} });
  return { url: server.url, services, server, close: () => server.close() };
}

/**
 * A second server over the same database whose tRPC calls all go through tRPC's own adapter (the native path is not
 * mounted): tests compare its answers with the native path's. Close it yourself.
 */
export async function startAdapterOnlyApi(db: Db, api: TestApi): Promise<TestApi> {
  const services = await testServices(db, { config: api.services.config });
  const routes = apiRoutes(services).map((r) =>
    r.prefix === '/api/trpc' ? { ...r, handler: createTrpcAdapter(services) } : r,
  );
  const server = await startServer({ pages: false, services, routes, port: 0, host: '127.0.0.1', log: () => {} });
  return { url: server.url, services, server, close: () => server.close() };
}

/** A token through the real token code; `db` may be the test database or a store (e.g. `api.services.store`). */
export async function makeToken(
  db: Db | Pick<Repositories, 'tokens'>,
  workspaceIds: string[],
  scopes: string[] = ['tasks:read', 'tasks:write', 'identities:release'],
): Promise<string> {
  return (
    await createApiToken('tokens' in db ? db : storeFor(db), {
      name: `test-${Math.random().toString(36).slice(2, 8)}`,
      workspaceIds,
      scopes,
    })
  ).token;
}

export interface CallResult {
  status: number;
  text: string;
  json: unknown;
  headers: Headers;
}

/**
 * One HTTP request to the test server. Every answer under /api/v1 is held to the OpenAPI document: one it
 * does not describe throws, failing the test (./openapi-check.ts).
 */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: {
    token?: string;
    body?: unknown;
    rawBody?: string | Uint8Array<ArrayBuffer>;
    form?: FormData;
    headers?: Record<string, string>;
    signal?: AbortSignal;
  } = {},
): Promise<CallResult> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array<ArrayBuffer> | FormData | undefined;
  if (opts.form !== undefined)
    body = opts.form; // fetch writes the multipart content type with its boundary
  else if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) body = JSON.stringify(opts.body);
  if (body !== undefined && !(body instanceof FormData)) headers['content-type'] ??= 'application/json';
  const res = await fetch(base + path, { method, headers, body, signal: opts.signal });
  const text = await res.text();
  checkRestResponse(method, path, { status: res.status, headers: res.headers, text });
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, json, headers: res.headers };
}

/** Calls a tRPC procedure over HTTP the way @trpc/client's httpLink does (no batching). */
export async function trpc(
  base: string,
  kind: 'query' | 'mutation',
  procedure: string,
  input: unknown,
  token?: string,
): Promise<CallResult> {
  if (kind === 'query') {
    return call(base, 'GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { token });
  }
  return call(base, 'POST', `/api/trpc/${procedure}`, { token, body: input });
}

export interface ApiWorld {
  db: Db;
  api: TestApi;
  ws: TestWorkspace;
  /** A token on `ws` with tasks:read, tasks:write and identities:release. */
  token: string;
}

/**
 * The usual set-up of an HTTP test file: registers beforeAll/afterAll for a fresh migrated database, the real
 * server over it, one workspace and a token, and hands them to `use` once ready.
 */
export function useApiWorld(use: (world: ApiWorld) => void): void {
  let world: ApiWorld | undefined;
  beforeAll(async () => {
    const db = await freshDb();
    const api = await startTestApi(db);
    const ws = await makeWorkspace(db);
    world = { db, api, ws, token: await makeToken(db, [ws.id]) };
    use(world);
  });
  afterAll(async () => {
    await world?.api.close();
    await world?.db.close();
  });
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends `request` (a whole HTTP/1.1 message, as text or bytes) on a fresh TCP connection and reads the answer until
 * the server closes the connection or `timeoutMs` passes. For what fetch cannot send: `OPTIONS *`, absolute-form
 * targets, raw bytes.
 */
export function rawRequest(base: string, request: string | Buffer, timeoutMs = 5_000): Promise<RawAnswer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [line = '', ...fields] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const f of fields) {
        const i = f.indexOf(':');
        if (i > 0) headers[f.slice(0, i).trim().toLowerCase()] = f.slice(i + 1).trim();
      }
      resolve({ status: Number(line.split(' ')[1] ?? 0), headers, body: rest.join('\r\n\r\n') });
    });
  });
}
