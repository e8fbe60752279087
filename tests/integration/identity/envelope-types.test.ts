// SPEC §4.1 step 1, §10: an `external_id` that is not a string is `400 {"error":"invalid payload"}`
// while the envelope is read — BEFORE authorization — on REST, tRPC and MCP alike. It used to be checked after
// authorization (so a caller without access got 404 and one with access got "invalid payload: external_id must be a
// string"). One parse for every surface: domain/tasks/create-input.ts (`parseEnvelope`, `parseIdentityEnvelope`).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { makeWorkspace, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, trpc, type TestApi, useApiWorld } from '../../support/http';
import { tableCounts } from '../hostile/hostile-support';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
/** A workspace the token can NOT access: authorization would answer 404 there. */
let hidden: TestWorkspace;
let token: string;
let mcp: McpTestClient;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  hidden = await makeWorkspace(db);
  mcp = await connectMcp(api.url, await makeToken(db, [ws.id]));
});
afterAll(() => mcp?.close());

const NOT_STRINGS: Array<[string, unknown]> = [
  ['a number', 123],
  ['a boolean', true],
  ['an object', { id: 'x' }],
  ['an array', ['x']],
];
const INVALID = { error: 'invalid payload' };
const TRPC_INVALID = {
  message: 'invalid payload',
  data: { code: 'BAD_REQUEST', httpStatus: 400, domainCode: 'invalid_payload' },
};

/** Each workspace: one the caller may write to, and one it cannot see — the answer must not depend on which. */
const workspaces = () =>
  [
    ['an accessible workspace', ws.id],
    ['a workspace the caller cannot access', hidden.id],
  ] as const;

describe.each(NOT_STRINGS)('external_id as %s', (_what, externalId) => {
  it('REST POST /tasks: 400 invalid payload before authorization, nothing written', async () => {
    for (const [where, workspaceId] of workspaces()) {
      const before = await tableCounts(db);
      const res = await call(api.url, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: workspaceId, external_id: externalId, title: 'T' },
      });
      expect({ where, status: res.status, body: res.json }).toEqual({ where, status: 400, body: INVALID });
      expect(await tableCounts(db)).toEqual(before);
    }
  });

  it('tRPC task.create, task.byExternalId and task.releaseExternalId: BAD_REQUEST invalid payload before authorization', async () => {
    for (const [where, workspaceId] of workspaces()) {
      const before = await tableCounts(db);
      const calls = [
        trpc(
          api.url,
          'mutation',
          'task.create',
          { workspace_id: workspaceId, external_id: externalId, title: 'T' },
          token,
        ),
        trpc(api.url, 'query', 'task.byExternalId', { workspace_id: workspaceId, external_id: externalId }, token),
        trpc(
          api.url,
          'mutation',
          'task.releaseExternalId',
          { workspace_id: workspaceId, external_id: externalId, idempotency_key: randomUUID() },
          token,
        ),
      ];
      for (const res of await Promise.all(calls)) {
        expect({ where, status: res.status }).toEqual({ where, status: 400 });
        expect((res.json as { error: unknown }).error).toMatchObject(TRPC_INVALID);
      }
      expect(await tableCounts(db)).toEqual(before);
    }
  });

  it('MCP create_task: a tool error with REST words before authorization, nothing written', async () => {
    for (const [where, workspaceId] of workspaces()) {
      const before = await tableCounts(db);
      const r = await mcp.call('create_task', { workspace_id: workspaceId, external_id: externalId, title: 'T' });
      expect({ where, isError: r.isError, json: r.json }).toEqual({
        where,
        isError: true,
        json: { ...INVALID, code: 'validation' },
      });
      expect(await tableCounts(db)).toEqual(before);
    }
  });
});

describe('what is not a type error stays where SPEC §4.1 puts it', () => {
  it('a 300-byte string from a caller without access is still 404 (authorization precedes the byte rules)', async () => {
    const long = 'x'.repeat(300);
    const rest = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: hidden.id, external_id: long, title: 'T' },
    });
    expect([rest.status, rest.json]).toEqual([404, { error: 'task not created' }]);
    const lookup = await trpc(
      api.url,
      'query',
      'task.byExternalId',
      { workspace_id: hidden.id, external_id: long },
      token,
    );
    expect(lookup.status).toBe(404);
    const mcpAnswer = await mcp.call('create_task', { workspace_id: hidden.id, external_id: long, title: 'T' });
    expect(mcpAnswer.json).toEqual({ error: 'task not created', code: 'not_found' });
  });

  it('null is no identity on create (a task without one), and a missing identity on lookup is "required" after authorization', async () => {
    const res = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: null, title: 'No identity' },
    });
    expect(res.status).toBe(200);
    expect(res.json).not.toHaveProperty('external_id');
    const missing = await trpc(api.url, 'query', 'task.byExternalId', { workspace_id: ws.id }, token);
    expect((missing.json as { error: { message: string } }).error.message).toBe(
      'invalid external_id: external_id is required',
    );
    const hiddenMissing = await trpc(api.url, 'query', 'task.byExternalId', { workspace_id: hidden.id }, token);
    expect([hiddenMissing.status, (hiddenMissing.json as { error: { message: string } }).error.message]).toEqual([
      404,
      'task not found',
    ]);
  });
});
