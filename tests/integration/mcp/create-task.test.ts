// MCP `create_task` over real Streamable HTTP with the SDK's own client (SPEC §3, §4.1, §10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, uniq, until, withPlannedStep, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, type TestApi } from '../../support/http';
import { connectMcp, type McpTestClient } from './mcp-client';
import { EVENTS } from '../../support/events';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;
let token: string;
let mcp: McpTestClient;
let both: McpTestClient;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  other = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  mcp = await connectMcp(api.url, token);
  both = await connectMcp(api.url, await makeToken(db, [ws.id, other.id]));
});
afterAll(async () => {
  await mcp.close();
  await both.close();
  await api.close();
  await db.close();
});

const tasks = () => count(db, 'SELECT COUNT(*) AS n FROM tasks');
/** Everything a create could write (SPEC §4.1: Found has zero side effects). */
const totals = async () => ({
  tasks: await tasks(),
  operations: await count(db, 'SELECT COUNT(*) AS n FROM creation_operations'),
  revisions: await count(db, 'SELECT COUNT(*) AS n FROM task_revisions'),
  events: await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS}`),
  contributions: await count(db, 'SELECT COUNT(*) AS n FROM remote_contributions'),
  sessions: await count(db, 'SELECT COUNT(*) AS n FROM agent_sessions'),
  intents: await count(db, 'SELECT COUNT(*) AS n FROM launch_intents'),
  launches: await count(db, 'SELECT COUNT(*) AS n FROM agent_launches'),
});

describe('create_task outcomes (SPEC §3)', () => {
  it('Created: a new external_id creates the task and reports deduplicated false, creation_complete true', async () => {
    const ext = uniq('mcp-new-');
    const r = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: 'From an agent' });
    expect(r.isError).toBe(false);
    expect(r.structured).toMatchObject({
      workspace_id: ws.id,
      external_id: ext,
      title: 'From an agent',
      deduplicated: false,
      creation_complete: true,
    });
    // The text carries the same JSON for clients that read only text.
    expect(r.json).toEqual(r.structured);
    expect(r.text).toMatch(/^Created task /);
    expect(
      await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE id = $1 AND external_id = $2', [r.structured!.id, ext]),
    ).toBe(1);
  });

  it('FoundSettled: a retry returns the same task unchanged with deduplicated true and writes nothing', async () => {
    const ext = uniq('mcp-settled-');
    const first = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: 'Original' });
    const before = await totals();
    const retry = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: 'Drifted title' });
    expect(retry.structured).toEqual({ ...first.structured, deduplicated: true, creation_complete: true });
    expect(retry.text).toContain('Nothing was created');
    expect(await totals()).toEqual(before);
  });

  it('FoundUnsettled: while the first create is paused after Begin, a retry reports deduplicated true, creation_complete false', async () => {
    const ext = uniq('mcp-unsettled-');
    api.services.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext, times: 1 });
    const firstCall = mcp.call(
      'create_task',
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Slow' }),
    );
    try {
      await until(
        () => (api.services.failpoints.paused.get('after_begin') ?? 0) === 1,
        10_000,
        'create paused after Begin',
      );
      const retry = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: 'Slow' });
      expect(retry.isError).toBe(false);
      expect(retry.structured).toMatchObject({ external_id: ext, deduplicated: true, creation_complete: false });
      expect(retry.text).toContain('Another create may still be running');
    } finally {
      api.services.failpoints.release('after_begin');
    }
    const first = await firstCall;
    expect(first.structured).toMatchObject({ external_id: ext, deduplicated: false, creation_complete: true });
  });

  it('a retry with start_agent and a different contribution URL returns the task, starts nothing, associates nothing', async () => {
    const ext = uniq('mcp-agent-');
    const firstUrl = `https://git.example.com/acme/app/pull/${Date.now()}`;
    const first = await mcp.call('create_task', {
      workspace_id: ws.id,
      external_id: ext,
      title: 'With a PR',
      remote_contributions: [firstUrl],
    });
    expect(first.structured).toMatchObject({ deduplicated: false });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM remote_contributions WHERE url = $1', [firstUrl])).toBe(1);
    const before = await totals();
    const otherUrl = `https://git.example.com/acme/app/pull/${Date.now() + 1}`;

    const retry = await mcp.call('create_task', {
      workspace_id: ws.id,
      external_id: ext,
      title: 'With a PR',
      start_agent: true,
      remote_contributions: [otherUrl],
    });

    expect(retry.structured).toMatchObject({ id: first.structured!.id, deduplicated: true, creation_complete: true });
    expect(await totals()).toEqual(before);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM remote_contributions WHERE url = $1', [otherUrl])).toBe(0);
    const still = await mcp.call('get_task', { task_id: first.structured!.id });
    expect(still.structured).toMatchObject({ id: first.structured!.id, external_id: ext });
  });
});

describe('create_task workspace resolution (SPEC §4.1 step 2)', () => {
  it('without workspace_id, a caller with exactly one workspace creates there', async () => {
    const r = await mcp.call('create_task', { external_id: uniq('mcp-auto-'), title: 'Auto' });
    expect(r.structured).toMatchObject({ workspace_id: ws.id, deduplicated: false });
  });

  it('without workspace_id or parent, a caller with two workspaces gets "workspace_id is required"', async () => {
    const before = await tasks();
    const r = await both.call('create_task', { external_id: uniq('mcp-amb-'), title: 'Ambiguous' });
    expect(r.isError).toBe(true);
    expect(r.json).toEqual({ error: 'workspace_id is required', code: 'validation' });
    expect(await tasks()).toBe(before);
  });

  it("with parent_id in another workspace, the new task is created in the parent's workspace", async () => {
    const parent = await both.call('create_task', { workspace_id: other.id, title: 'Parent elsewhere' });
    const child = await both.call('create_task', {
      parent_id: parent.structured!.id,
      external_id: uniq('mcp-child-'),
      title: 'Child',
    });
    expect(child.structured).toMatchObject({
      workspace_id: other.id,
      parent_id: parent.structured!.id,
      deduplicated: false,
    });
  });

  it("a Found retry whose parent was deleted still resolves the parent's workspace from retained history", async () => {
    const ext = uniq('mcp-orphan-');
    const parent = await both.call('create_task', { workspace_id: other.id, title: 'Parent to delete' });
    const child = await both.call('create_task', {
      parent_id: parent.structured!.id,
      external_id: ext,
      title: 'Child',
    });
    const del = await call(api.url, 'DELETE', `/api/v1/tasks/${String(parent.structured!.id)}`, {
      token: await makeToken(db, [other.id]),
    });
    expect(del.status).toBe(204);
    const retry = await both.call('create_task', { parent_id: parent.structured!.id, external_id: ext });
    expect(retry.structured).toMatchObject({ id: child.structured!.id, workspace_id: other.id, deduplicated: true });
  });
});

describe('create_task title is enforced only after a lookup miss (SPEC §4.1 step 6)', () => {
  it('a Found retry without a title still returns Found', async () => {
    const ext = uniq('mcp-notitle-');
    const first = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext, title: 'Has a title' });
    const retry = await mcp.call('create_task', { workspace_id: ws.id, external_id: ext });
    expect(retry.structured).toEqual({ ...first.structured, deduplicated: true, creation_complete: true });
  });

  it("a miss without a title is a validation error with REST's words and writes nothing", async () => {
    const before = await totals();
    const r = await mcp.call('create_task', { workspace_id: ws.id, external_id: uniq('mcp-miss-') });
    expect(r.isError).toBe(true);
    expect(r.structured).toBeUndefined();
    expect(r.json).toEqual({ error: 'title is required', code: 'validation' });
    expect(await totals()).toEqual(before);
  });
});

describe('create_task errors say what REST says (STYLE habit 4)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['control characters', { external_id: 'ext-1\n', title: 'x' }],
    ['an identity over 255 bytes', { external_id: 'é'.repeat(128), title: 'x' }],
    ['a non-string identity', { external_id: 42, title: 'x' }],
    ['an unknown step', { external_id: uniq('mcp-step-'), title: 'x', step_id: 'no-such-step' }],
    ['a wrong-typed field after a miss', { external_id: uniq('mcp-type-'), title: 'x', start_agent: 'yes' }],
  ];
  it.each(cases)('%s: same message as POST /api/v1/tasks', async (_what, body) => {
    const rest = await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, ...body } });
    expect(rest.status).toBe(400);
    const r = await mcp.call('create_task', { workspace_id: ws.id, ...body });
    expect(r.isError).toBe(true);
    expect(r.json).toEqual({ error: (rest.json as { error: string }).error, code: 'validation' });
  });
});

describe('malformed tool arguments are JSON-RPC -32602 invalid params, in one sentence (SPEC §10)', () => {
  /** A raw `tools/call` (the SDK's client would not send these), answered as JSON (stateless Streamable HTTP). */
  async function toolsCall(params: unknown) {
    const rawBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      ...(params === undefined ? {} : { params }),
    });
    return call(api.url, 'POST', '/api/mcp', {
      token,
      rawBody,
      headers: { accept: 'application/json, text/event-stream' },
    });
  }
  const invalidParams = (message: string) => ({ jsonrpc: '2.0', id: 7, error: { code: -32602, message } });

  it.each([
    ['a string', '{"title":"x"}', 'arguments must be an object, not a string'],
    ['a number', 5, 'arguments must be an object, not a number'],
    ['null', null, 'arguments must be an object, not null'],
    ['an array', [{ title: 'x' }], 'arguments must be an object, not an array'],
    ['a boolean', true, 'arguments must be an object, not a boolean'],
  ])('arguments %s: -32602 naming it, nothing written', async (_what, args, words) => {
    const before = await totals();
    for (const name of ['create_task', 'get_task', 'list_tasks']) {
      const r = await toolsCall({ name, arguments: args });
      expect(r.status).toBe(200);
      expect(r.json).toEqual(invalidParams(`Invalid params: ${words}`));
    }
    expect(await totals()).toEqual(before);
  });

  it('a tool name that is not a string, or no params at all: -32602 too', async () => {
    expect((await toolsCall({ name: 5, arguments: {} })).json).toEqual(
      invalidParams('Invalid params: name must be a string, not a number'),
    );
    expect((await toolsCall({ arguments: {} })).json).toEqual(invalidParams('Invalid params: name is required'));
    expect((await toolsCall(undefined)).json).toEqual(invalidParams('Invalid params: params is required'));
  });

  it("well-formed arguments with a wrong value stay a tool error with REST's words (MCP 2025-11-25: the agent can correct it)", async () => {
    const r = await toolsCall({ name: 'get_task', arguments: { task_id: 5 } });
    const result = (r.json as { result: { isError: boolean; content: Array<{ text: string }> } }).result;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0]!.text)).toEqual({
      error: 'invalid request: task_id: Invalid input: expected string, received number',
      code: 'validation',
    });
  });
});
