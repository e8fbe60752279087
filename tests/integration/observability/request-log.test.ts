// One structured log line per request — request id (accepted or generated, echoed back), route,
// status, duration, actor — and never a secret, a body or a query string, on every surface.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { parseApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { createLogger } from '../../../src/server/observability/logger';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { connectMcp } from '../mcp/mcp-client';

const written: string[] = [];
let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db, {
    log: createLogger({ level: 'info', format: 'json' }, { write: (line: string) => written.push(line) }),
  });
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

type Line = Record<string, unknown>;
const requestLines = (): Line[] => written.map((l) => JSON.parse(l) as Line).filter((l) => l.req_id !== undefined);

/** The one line logged for the request with this id (it is written when the response ends). */
async function lineFor(reqId: string): Promise<Line> {
  await until(() => requestLines().some((l) => l.req_id === reqId), 5_000, `the log line of ${reqId}`);
  const lines = requestLines().filter((l) => l.req_id === reqId);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('request log lines', () => {
  it('accept the caller’s X-Request-Id, echo it, and say route, status, duration and actor as JSON', async () => {
    const id = `trace-${randomUUID()}`;
    const r = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, title: 't' },
      headers: { 'x-request-id': id },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toBe(id);
    const line = await lineFor(id);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'POST',
      route: '/api/v1/tasks',
      status: 200,
      actor_id: parseApiToken(token)!.id,
    });
    expect(typeof line.duration_ms).toBe('number');
    expect(typeof line.time).toBe('string');
  });

  it('generate an id when none (or an unusable one) is sent, and echo that', async () => {
    const sent: Array<Record<string, string>> = [
      {},
      { 'x-request-id': 'has spaces in it' },
      { 'x-request-id': 'x'.repeat(200) },
    ];
    for (const headers of sent) {
      const r = await call(api.url, 'GET', '/api/health', { headers });
      const id = r.headers.get('x-request-id')!;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await lineFor(id)).toMatchObject({ route: '/api/health', status: 200, method: 'GET' });
    }
  });

  it('name routes by pattern and errors by code, never with the path, query, body or credentials', async () => {
    const secretTitle = uniq('SECRET-TITLE-');
    const ext = uniq('SECRET-EXT-');
    const lookupId = randomUUID();
    const lookup = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
      token,
      headers: { 'x-request-id': lookupId },
    });
    expect(lookup.status).toBe(404);
    expect(await lineFor(lookupId)).toMatchObject({
      route: '/api/v1/workspaces/:workspace_id/tasks/by-external-id',
      status: 404,
      error_code: 'task_not_found',
    });

    const createId = randomUUID();
    await trpc(
      api.url,
      'mutation',
      'task.create',
      { workspace_id: ws.id, external_id: ext, title: secretTitle },
      token,
    ).then((r) => expect(r.status).toBe(200));
    const trpcCall = await call(api.url, 'POST', '/api/trpc/task.create', {
      token,
      body: { workspace_id: ws.id, external_id: ext, title: secretTitle },
      headers: { 'x-request-id': createId },
    });
    expect(trpcCall.status).toBe(200);
    expect(await lineFor(createId)).toMatchObject({ route: '/api/trpc/task.create', status: 200 });
    const unknownId = randomUUID();
    await call(api.url, 'GET', `/api/trpc/${uniq('no.such')}?input=%7B%7D`, {
      token,
      headers: { 'x-request-id': unknownId },
    });
    expect((await lineFor(unknownId)).route).toBe('/api/trpc/unknown');

    const badId = randomUUID();
    await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      rawBody: `{"title":"${secretTitle}"`,
      headers: { 'x-request-id': badId },
    });
    expect(await lineFor(badId)).toMatchObject({ status: 400, error_code: 'invalid_payload' });

    const mcp = await connectMcp(api.url, token);
    await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: secretTitle });
    await mcp.close();

    const unauthenticatedId = randomUUID();
    await call(api.url, 'GET', `/api/v1/tasks/${randomUUID()}`, {
      token: `${token}x`,
      headers: { 'x-request-id': unauthenticatedId },
    });
    expect(await lineFor(unauthenticatedId)).toMatchObject({ status: 401, error_code: 'unauthenticated' });
    expect((await lineFor(unauthenticatedId)).actor_id).toBeUndefined();

    await until(() => requestLines().some((l) => l.route === '/api/mcp'), 5_000, 'the MCP lines');
    const everything = written.join('');
    for (const secret of [token, parseApiToken(token)!.secret, secretTitle, ext, 'authorization', 'Bearer'])
      expect(everything).not.toContain(secret);
  });

  it('log a 500 at error level with the error, while the client gets the generic message', async () => {
    const id = randomUUID();
    // A failpoint that throws a plain Error where nothing maps it: the create fails as an internal error.
    const title = uniq('boom-');
    api.services.failpoints.arm({ name: 'before_begin', action: 'error', match: title, times: 1 });
    const r = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, title },
      headers: { 'x-request-id': id },
    });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: 'internal error' });
    const line = await lineFor(id);
    expect(line).toMatchObject({ level: 'error', msg: 'request failed', status: 500, error_code: 'internal' });
    expect(JSON.stringify(line.err)).toContain('failpoint before_begin');
    expect(JSON.stringify(line.err)).toContain('stack');
  });
});
