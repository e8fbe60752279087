// List parameters are one zod schema per list, shared by every surface, so each surface
// accepts the same values and refuses the rest with the same 400 and the same words.
// - Task list cursor (REST `?cursor=`, tRPC `task.list`, MCP `list_tasks`): above 2^31-1 it reached PostgreSQL's
//   `integer` column (500 `value out of range`), and `0x10`, `1e3`, `" 5"` were read as numbers.
// - Event history (`GET …/events`, `event.list`) and webhook deliveries: REST accepted `limit=0`, then failed with
//   a 500 on the empty page, where tRPC required 1 or more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, trpc, type TestApi, useApiWorld } from '../../support/http';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let adminToken: string;
let webhookId: string;
let mcp: McpTestClient;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  for (let i = 0; i < 3; i++)
    await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: uniq('pg-'), title: `T${i}` },
    });
  adminToken = await makeToken(db, [ws.id], ['tasks:read', 'tasks:write', 'admin']);
  const hook = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
    token: adminToken,
    body: { url: 'https://hooks.invalid/hook' },
  });
  expect(hook.status).toBe(201);
  webhookId = (hook.json as { id: string }).id;
  mcp = await connectMcp(api.url, token);
});
afterAll(async () => mcp?.close());

const CURSOR_ERROR =
  'invalid request: cursor: expected a next_cursor value (a whole number from 1 to 2147483647, digits only)';

/** The three task-list surfaces, each answering {status, error message} for one cursor. */
async function listEverywhere(cursor: string): Promise<Array<{ surface: string; status: number; error?: string }>> {
  const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?cursor=${encodeURIComponent(cursor)}`, {
    token,
  });
  const t = await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id, cursor }, token);
  const m = await mcp.call('list_tasks', { workspace_id: ws.id, cursor });
  return [
    { surface: 'rest', status: rest.status, error: (rest.json as { error?: string }).error },
    { surface: 'trpc', status: t.status, error: (t.json as { error?: { message: string } }).error?.message },
    {
      surface: 'mcp',
      status: m.isError ? (m.json.code === 'validation' ? 400 : 500) : 200,
      error: m.isError ? String(m.json.error) : undefined,
    },
  ];
}

describe('task list cursor: one strict rule on REST, tRPC and MCP', () => {
  it.each([
    '2147483648',
    '99999999999',
    '0x10',
    '1e3',
    ' 5',
    '5 ',
    '-1',
    '1.5',
    '007',
    '0',
    '+5',
    '١٢',
    'abc',
    '9'.repeat(40),
  ])('cursor %j is a 400 with the same words everywhere', async (cursor) => {
    for (const answer of await listEverywhere(cursor)) {
      expect(answer, answer.surface).toEqual({ surface: answer.surface, status: 400, error: CURSOR_ERROR });
    }
  });

  it('the largest task number is a valid cursor, and next_cursor pages through every task', async () => {
    for (const answer of await listEverywhere('2147483647')) expect(answer.status, answer.surface).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = cursor ? `&cursor=${cursor}` : '';
      const page = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?limit=1${q}`, { token });
      expect(page.status).toBe(200);
      const body = page.json as { tasks: Array<{ id: string }>; next_cursor: string | null };
      seen.push(...body.tasks.map((t) => t.id));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(3);
  });

  it('an empty cursor (REST `?cursor=`) or none is the first page', async () => {
    const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?cursor=`, { token });
    expect((rest.json as { tasks: unknown[] }).tasks).toHaveLength(3);
    const t = await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id, cursor: null }, token);
    expect(t.status).toBe(200);
  });
});

describe('task list limit: REST no longer clamps what tRPC and MCP refuse', () => {
  it.each([0, 201, -1, 1.5])('limit %j is a 400 with the same words everywhere', async (limit) => {
    const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?limit=${limit}`, { token });
    const t = await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id, limit }, token);
    const m = await mcp.call('list_tasks', { workspace_id: ws.id, limit });
    const words = 'invalid request: limit: expected a whole number from 1 to 200';
    expect(rest.status).toBe(400);
    expect(rest.json).toEqual({ error: words });
    expect(t.status).toBe(400);
    expect((t.json as { error: { message: string } }).error.message).toBe(words);
    expect(m.json).toEqual({ error: words, code: 'validation' });
  });
});

describe('event history and deliveries: one page schema for REST and tRPC', () => {
  const restEvents = (q: string) => call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/events?${q}`, { token });
  const restDeliveries = (q: string) =>
    call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/webhooks/${webhookId}/deliveries?${q}`, { token: adminToken });

  it('the reported request (after=999999999&limit=0) is a 400, not a 500, on REST and on tRPC', async () => {
    const rest = await restEvents('after=999999999&limit=0');
    expect(rest.status).toBe(400);
    expect(rest.json).toEqual({ error: 'invalid request: limit: expected a whole number from 1 to 500' });
    const t = await trpc(api.url, 'query', 'event.list', { workspace_id: ws.id, after: 999999999, limit: 0 }, token);
    expect(t.status).toBe(400);
    expect((t.json as { error: { message: string } }).error.message).toBe(
      'invalid request: limit: expected a whole number from 1 to 500',
    );
  });

  it.each([
    ['limit', '0', 0],
    ['limit', '501', 501],
    ['after', '-1', -1],
    ['after', '1e3', 1000.5],
    ['after', '9007199254740992', 9007199254740992],
  ] as const)(
    '%s=%s is refused alike by REST and tRPC, for events and for deliveries',
    async (name, restValue, trpcValue) => {
      const range = name === 'limit' ? '1 to 500' : `0 to ${Number.MAX_SAFE_INTEGER}`;
      const words = `invalid request: ${name}: expected a whole number from ${range}`;
      for (const rest of [await restEvents(`${name}=${restValue}`), await restDeliveries(`${name}=${restValue}`)]) {
        expect(rest.status).toBe(400);
        expect(rest.json).toEqual({ error: words });
      }
      const events = await trpc(api.url, 'query', 'event.list', { workspace_id: ws.id, [name]: trpcValue }, token);
      const deliveries = await trpc(
        api.url,
        'query',
        'event.deliveries',
        { workspace_id: ws.id, webhook_id: webhookId, [name]: trpcValue },
        adminToken,
      );
      for (const t of [events, deliveries]) {
        expect(t.status).toBe(400);
        expect((t.json as { error: { message: string } }).error.message).toBe(words);
      }
    },
  );

  it('a page past the end is empty and keeps its place (limit 1 at the far end)', async () => {
    const rest = await restEvents('after=999999999&limit=1');
    expect(rest.status).toBe(200);
    expect(rest.json).toEqual({ events: [], next_after: 999999999 });
    const all = await restEvents('limit=500');
    expect((all.json as { events: unknown[] }).events.length).toBeGreaterThanOrEqual(3);
  });
});
