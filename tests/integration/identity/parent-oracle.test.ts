// SPEC §4.1 step 2, §11: a create that names only a parent must not reveal whether that parent
// exists in a workspace the caller cannot access. Before the fix, a hidden parent answered 404 `task not created`
// (its workspace was resolved, then authorization failed) and a parent that does not exist answered 400
// `workspace_id is required` — an oracle for task ids across workspaces. Both now get the same bytes, on every
// surface, with or without an identity, and nothing is written.
import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, trpc, useApiWorld, type ApiWorld } from '../../support/http';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';

let world: ApiWorld;
useApiWorld((w) => (world = w));

let other: TestWorkspace;
let hiddenParent: string;
let mcp: McpTestClient;
beforeAll(async () => {
  other = await makeWorkspace(world.db);
  const otherToken = await makeToken(world.db, [other.id]);
  const made = await call(world.api.url, 'POST', '/api/v1/tasks', {
    token: otherToken,
    body: { workspace_id: other.id, title: 'Hidden parent' },
  });
  hiddenParent = (made.json as { id: string }).id;
  mcp = await connectMcp(world.api.url, world.token);
});
afterAll(async () => mcp?.close());

const bodies = () => [
  (parent: string) => ({ parent_id: parent, title: 'Child' }),
  (parent: string) => ({ parent_id: parent, external_id: 'probe-ext', title: 'Child' }),
  (parent: string) => ({ parent_id: parent, external_id: 'x'.repeat(300) }),
];

describe('a create naming only a parent (SPEC §4.1 step 2, §11)', () => {
  it('REST: a hidden parent and a missing one get byte-identical answers, and nothing is written', async () => {
    const tasksBefore = await count(world.db, 'SELECT COUNT(*) AS n FROM tasks');
    for (const body of bodies()) {
      const hidden = await call(world.api.url, 'POST', '/api/v1/tasks', {
        token: world.token,
        body: body(hiddenParent),
      });
      const missing = await call(world.api.url, 'POST', '/api/v1/tasks', {
        token: world.token,
        body: body(randomUUID()),
      });
      expect(hidden.status).toBe(404);
      expect(hidden.text).toBe('{"error":"task not created"}');
      expect(missing.status).toBe(hidden.status);
      expect(missing.text).toBe(hidden.text);
      expect([...missing.headers.keys()].sort()).toEqual([...hidden.headers.keys()].sort());
    }
    expect(await count(world.db, 'SELECT COUNT(*) AS n FROM tasks')).toBe(tasksBefore);
  });

  it('tRPC: task.create answers the same bytes for both', async () => {
    for (const body of bodies()) {
      const hidden = await trpc(world.api.url, 'mutation', 'task.create', body(hiddenParent), world.token);
      const missing = await trpc(world.api.url, 'mutation', 'task.create', body(randomUUID()), world.token);
      expect(hidden.status).toBe(404);
      expect(hidden.json).toMatchObject({ error: { message: 'task not created', data: { code: 'NOT_FOUND' } } });
      expect(missing.status).toBe(hidden.status);
      expect(missing.text).toBe(hidden.text);
    }
  });

  it('MCP: create_task gives the same tool result for both (the token has one workspace: no fallback to it)', async () => {
    for (const body of bodies()) {
      const args = (parent: string) => body(parent) as Record<string, unknown>;
      const hidden = (await mcp.client.callTool({
        name: 'create_task',
        arguments: args(hiddenParent),
      })) as CallToolResult;
      const missing = (await mcp.client.callTool({
        name: 'create_task',
        arguments: args(randomUUID()),
      })) as CallToolResult;
      expect(hidden.isError).toBe(true);
      expect(JSON.stringify(hidden)).toContain('task not created');
      expect(JSON.stringify(missing)).toBe(JSON.stringify(hidden));
    }
  });

  it('a parent the caller can see still resolves its workspace (and a deleted one, from retained history)', async () => {
    const parent = await call(world.api.url, 'POST', '/api/v1/tasks', {
      token: world.token,
      body: { workspace_id: world.ws.id, title: 'P' },
    });
    const parentId = (parent.json as { id: string }).id;
    const ext = uniq('child-');
    const child = await call(world.api.url, 'POST', '/api/v1/tasks', {
      token: world.token,
      body: { parent_id: parentId, external_id: ext, title: 'C' },
    });
    expect(child.status).toBe(200);
    expect(child.json).toMatchObject({ workspace_id: world.ws.id, parent_id: parentId, deduplicated: false });
    await world.db.run('DELETE FROM tasks WHERE id = $1', [parentId]);
    const again = await call(world.api.url, 'POST', '/api/v1/tasks', {
      token: world.token,
      body: { parent_id: parentId, external_id: ext },
    });
    expect(again.json).toMatchObject({ id: (child.json as { id: string }).id, deduplicated: true });
  });
});
