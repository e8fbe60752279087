// The MCP surface's contract beyond create outcomes: authentication, the 404 that reveals nothing (SPEC §11),
// the read tools' shape (SPEC §10), the tool list (no lookup tool) and the words of SPEC §10 (1)–(3).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, type TestApi } from '../../support/http';
import { connectMcp, type McpTestClient } from './mcp-client';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;
let token: string;
let mcp: McpTestClient;
let otherMcp: McpTestClient;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  other = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  mcp = await connectMcp(api.url, token);
  otherMcp = await connectMcp(api.url, await makeToken(db, [other.id]));
});
afterAll(async () => {
  await mcp.close();
  await otherMcp.close();
  await api.close();
  await db.close();
});

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};
const mcpHeaders = { accept: 'application/json, text/event-stream' };

describe('authentication (SPEC §11)', () => {
  it('a request without a token is 401 and reaches no tool', async () => {
    const r = await call(api.url, 'POST', '/api/mcp', { body: initialize, headers: mcpHeaders });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'authentication required' });
  });

  it('a request with an unknown token is 401', async () => {
    const r = await call(api.url, 'POST', '/api/mcp', {
      token: 'tth_not-a-token',
      body: initialize,
      headers: mcpHeaders,
    });
    expect(r.status).toBe(401);
  });

  it('the SDK client cannot connect without a valid token', async () => {
    await expect(connectMcp(api.url, 'tth_not-a-token')).rejects.toThrow();
  });

  it('GET (no server-to-client stream in stateless mode) is 405 for an authenticated caller', async () => {
    const r = await call(api.url, 'GET', '/api/mcp', { token, headers: mcpHeaders });
    expect(r.status).toBe(405);
  });
});

describe('a workspace the caller cannot access reveals nothing (SPEC §4.1 step 3, §11)', () => {
  it('create_task into it gives the same not-found whether or not the identity is held there, and writes nothing', async () => {
    const held = uniq('mcp-secret-');
    const secret = await otherMcp.call('create_task', {
      workspace_id: other.id,
      external_id: held,
      title: 'Secret title',
    });
    const before = await count(db, 'SELECT COUNT(*) AS n FROM tasks');

    const onHeld = await mcp.call('create_task', { workspace_id: other.id, external_id: held, title: 'Probe' });
    const onFree = await mcp.call('create_task', {
      workspace_id: other.id,
      external_id: uniq('mcp-free-'),
      title: 'Probe',
    });
    const noTitle = await mcp.call('create_task', { workspace_id: other.id, external_id: held });
    const tooLong = await mcp.call('create_task', { workspace_id: other.id, external_id: 'x'.repeat(300) });

    for (const r of [onHeld, onFree, noTitle, tooLong]) {
      expect(r.isError).toBe(true);
      expect(r.text).toBe('{"error":"task not created","code":"not_found"}');
    }
    for (const leaked of [secret.structured!.id, secret.structured!.identifier, 'Secret title', other.prefix]) {
      expect(onHeld.text).not.toContain(String(leaked));
    }
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks')).toBe(before);
  });

  it('create_task under a parent in that workspace gives the same not-found', async () => {
    const parent = await otherMcp.call('create_task', { workspace_id: other.id, title: 'Hidden parent' });
    const r = await mcp.call('create_task', { parent_id: parent.structured!.id, title: 'Child' });
    expect(r.text).toBe('{"error":"task not created","code":"not_found"}');
  });

  it('get_task on its task is the same "task not found" as a task that does not exist', async () => {
    const hidden = await otherMcp.call('create_task', { workspace_id: other.id, title: 'Hidden' });
    const onHidden = await mcp.call('get_task', { task_id: hidden.structured!.id });
    const onMissing = await mcp.call('get_task', { task_id: randomUUID() });
    expect(onHidden.isError).toBe(true);
    expect(onHidden.text).toBe('{"error":"task not found","code":"not_found"}');
    expect(onMissing.text).toBe(onHidden.text);
  });

  it('list_tasks on it is the same "not found" as a workspace that does not exist', async () => {
    const onOther = await mcp.call('list_tasks', { workspace_id: other.id });
    const onMissing = await mcp.call('list_tasks', { workspace_id: randomUUID() });
    expect(onOther.isError).toBe(true);
    expect(onOther.text).toBe('{"error":"not found","code":"not_found"}');
    expect(onMissing.text).toBe(onOther.text);
  });
});

describe('read tools project the REST task shape (SPEC §10)', () => {
  it('get_task returns exactly GET /api/v1/tasks/:id', async () => {
    const created = await mcp.call('create_task', {
      workspace_id: ws.id,
      external_id: uniq('mcp-read-'),
      title: 'Read me',
    });
    const id = String(created.structured!.id);
    const r = await mcp.call('get_task', { task_id: id });
    const rest = await call(api.url, 'GET', `/api/v1/tasks/${id}`, { token });
    expect(r.structured).toEqual(rest.json);
    expect(r.structured).not.toHaveProperty('deduplicated');
    expect(r.structured).not.toHaveProperty('creation_complete');
  });

  it('list_tasks returns exactly GET /api/v1/workspaces/:id/tasks, defaulting to the single workspace', async () => {
    await mcp.call('create_task', { workspace_id: ws.id, title: 'No identity' });
    const r = await mcp.call('list_tasks', { limit: 5 });
    const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?limit=5`, { token });
    expect(r.structured).toEqual(rest.json);
    // SPEC §3: a task without an identity omits external_id rather than sending null.
    const plain = (r.structured!.tasks as Array<Record<string, unknown>>).find((t) => t.title === 'No identity');
    expect(plain).toBeDefined();
    expect(plain).not.toHaveProperty('external_id');
  });

  it('list_tasks refuses a bad limit as a validation error', async () => {
    const r = await mcp.call('list_tasks', { workspace_id: ws.id, limit: 0 });
    expect(r.isError).toBe(true);
    expect(r.json).toMatchObject({ code: 'validation' });
  });
});

describe('tool list and descriptions (SPEC §10)', () => {
  it('offers create_task, get_task and list_tasks, and no lookup tool', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['create_task', 'get_task', 'list_tasks']);
  });

  it('create_task accepts external_id without title (nothing is required)', async () => {
    const { tools } = await mcp.client.listTools();
    const create = tools.find((t) => t.name === 'create_task')!;
    expect(create.inputSchema.properties).toHaveProperty('external_id');
    expect(create.inputSchema.required ?? []).toEqual([]);
  });

  it('the tool and external_id descriptions state the three things plainly', async () => {
    const { tools } = await mcp.client.listTools();
    const create = tools.find((t) => t.name === 'create_task')!;
    const param = (create.inputSchema.properties!.external_id as { description: string }).description;
    for (const text of [create.description!, param]) {
      // (1) create-if-absent, never a check
      expect(text).toContain(
        'creates the task when nothing holds the identity: it is create-if-absent, never a way to check whether something exists',
      );
      // (2) deduplicated means nothing new was created
      expect(text).toContain('`deduplicated: true` means nothing new was created, so do not report creating one');
      // (3) unsettled: another create may still be running; never release and recreate
      expect(text).toContain(
        '`deduplicated: true` with `creation_complete: false` means another create may still be running: do not assume the task is ready, and never release and recreate it',
      );
    }
  });

  it('creation_complete is described narrowly: required synchronous setup, never "done" or "agent running"', async () => {
    const { tools } = await mcp.client.listTools();
    const create = tools.find((t) => t.name === 'create_task')!;
    const out = create.outputSchema!.properties as Record<string, { description?: string }>;
    const words = out.creation_complete!.description!;
    expect(words).toContain('required synchronous setup finished');
    expect(words).toContain('never means the task is done or that an agent is running');
    expect(create.description).toContain('`creation_complete` means only that the required synchronous setup finished');
    expect(out.deduplicated!.description).toContain('nothing new was created, so do not report creating one');
  });
});
