// SPEC §10: "a text field that cannot be stored as sent (a lone surrogate) is refused as invalid, never silently
// altered; a value too long is named as too long." A title sent as the JSON escape `"\udc00"` used to be echoed back
// as sent while PostgreSQL and SQLite kept U+FFFD; a 600-character title was refused as `title is required`. Every
// case sends JSON text with the escape (JSON.stringify writes a lone surrogate as `\udXXX`) through the real server,
// on both dialects, and checks the database afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, trpc, type TestApi, useApiWorld } from '../../support/http';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let mcp: McpTestClient;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  mcp = await connectMcp(api.url, token);
});
afterAll(() => mcp?.close());

const LONE = ['\udc00', '\ud800', 'a\ud800b', 'end\udbff', '\udfff\ud800'];
const restCreate = (body: object) =>
  call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, ...body } });
const trpcCreate = (input: object) =>
  trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, ...input }, token);
const trpcMessage = (r: { json: unknown }) => (r.json as { error: { message: string } }).error.message;

/** Every stored text of the tasks table that was "repaired": what a silently altered lone surrogate looks like. */
async function repairedTexts(): Promise<number> {
  const rows = await db.query<{ title: string; description: string | null }>('SELECT title, description FROM tasks');
  return rows.filter((r) => `${r.title}${r.description ?? ''}`.includes('\ufffd')).length;
}

describe('a lone surrogate is refused on every surface, with the field named, and nothing is written', () => {
  for (const [field, body] of [
    ['title', (s: string) => ({ title: s })],
    ['description', (s: string) => ({ title: 'T', description: s })],
    ['remote_contributions.0', (s: string) => ({ title: 'T', remote_contributions: [`https://git.example/pr/${s}`] })],
  ] as const) {
    it(`${field}: REST, tRPC and MCP answer invalid payload`, async () => {
      const before = await tableCounts(db);
      const words = `invalid payload: ${field} must be well-formed Unicode`;
      for (const s of LONE) {
        const rest = await restCreate(body(s));
        expect([rest.status, rest.json], JSON.stringify(s)).toEqual([400, { error: words }]);
        const viaTrpc = await trpcCreate(body(s));
        expect([viaTrpc.status, trpcMessage(viaTrpc)]).toEqual([400, words]);
        const viaMcp = await mcp.call('create_task', { workspace_id: ws.id, ...body(s) });
        expect(viaMcp.json).toEqual({ error: words, code: 'validation' });
      }
      expect(await tableCounts(db)).toEqual(before);
      expect(await repairedTexts()).toBe(0);
    });
  }

  it('an update (REST PATCH, tRPC task.update) is refused and the task keeps its text', async () => {
    const task = (await restCreate({ title: 'Kept', description: 'kept too' })).json as {
      id: string;
      revision: number;
    };
    const before = await tableCounts(db);
    for (const patch of [{ title: '\udc00' }, { description: 'x\ud800' }]) {
      const field = Object.keys(patch)[0]!;
      const rest = await call(api.url, 'PATCH', `/api/v1/tasks/${task.id}`, { token, body: patch });
      expect([rest.status, rest.json]).toEqual([
        400,
        { error: `invalid payload: ${field} must be well-formed Unicode` },
      ]);
      const viaTrpc = await trpc(api.url, 'mutation', 'task.update', { id: task.id, patch }, token);
      expect(trpcMessage(viaTrpc)).toBe(`invalid payload: ${field} must be well-formed Unicode`);
    }
    expect(await tableCounts(db)).toEqual(before);
    const stored = await db.one<{ title: string; description: string; revision: number }>(
      'SELECT title, description, revision FROM tasks WHERE id = $1',
      [task.id],
    );
    expect(stored).toMatchObject({ title: 'Kept', description: 'kept too', revision: task.revision });
  });

  it("the webhook description and the console's step and token names are refused the same way", async () => {
    const admin = await makeToken(db, [ws.id], ['admin']);
    const hook = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: 'https://hooks.example/x', description: 'd\ud800' },
    });
    expect([hook.status, hook.json]).toEqual([
      400,
      { error: 'invalid payload: description must be well-formed Unicode' },
    ]);
    const step = await trpc(
      api.url,
      'mutation',
      'admin.createStep',
      { workspace_id: ws.id, name: 'Review\udc00', wip_limit: null },
      admin,
    );
    expect(trpcMessage(step)).toBe('invalid payload: name must be well-formed Unicode');
    const named = await trpc(
      api.url,
      'mutation',
      'admin.createToken',
      { workspace_id: ws.id, name: '\ud800', scopes: ['tasks:read'] },
      admin,
    );
    expect(trpcMessage(named)).toBe('invalid payload: name must be well-formed Unicode');
    expect(await db.query('SELECT id FROM webhooks WHERE workspace_id = $1', [ws.id])).toEqual([]);
    expect(
      await db.query("SELECT id FROM workflow_steps WHERE workspace_id = $1 AND name LIKE 'Review%'", [ws.id]),
    ).toEqual([]);
  });

  it('a release reason over tRPC is refused with the same words, and nothing is released', async () => {
    const ext = uniq('reason-');
    await restCreate({ external_id: ext, title: 'Held' });
    const r = await trpc(
      api.url,
      'mutation',
      'task.releaseExternalId',
      { workspace_id: ws.id, external_id: ext, idempotency_key: crypto.randomUUID(), reason: 'why\udc00' },
      token,
    );
    expect(trpcMessage(r)).toBe('invalid payload: reason must be well-formed Unicode');
    expect(
      (await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, { token }))
        .status,
    ).toBe(200);
  });
});

describe('where in SPEC §4.1 the refusal happens', () => {
  it('an identity with a lone surrogate is checked after authorization, as every byte rule of SPEC §2.1 is', async () => {
    const stranger = await makeToken(db, [(await makeWorkspace(db)).id]);
    const denied = await call(api.url, 'POST', '/api/v1/tasks', {
      token: stranger,
      body: { workspace_id: ws.id, external_id: 'x\ud800', title: 'T' },
    });
    expect([denied.status, denied.json]).toEqual([404, { error: 'task not created' }]);
    const allowed = await restCreate({ external_id: 'x\ud800', title: 'T' });
    expect([allowed.status, allowed.json]).toEqual([
      400,
      { error: 'invalid payload: external_id must be well-formed Unicode' },
    ]);
    const lookup = await trpc(
      api.url,
      'query',
      'task.byExternalId',
      { workspace_id: ws.id, external_id: 'x\ud800' },
      token,
    );
    expect(trpcMessage(lookup)).toBe('invalid payload: external_id must be well-formed Unicode');
  });

  it('a title is checked after the lookup: a retry of a held identity still gets its task back, unchanged', async () => {
    const ext = uniq('drift-');
    const first = (await restCreate({ external_id: ext, title: 'Original' })).json as { id: string };
    const before = await tableCounts(db);
    const retry = await restCreate({ external_id: ext, title: '\udc00' });
    expect(retry.json).toMatchObject({ id: first.id, title: 'Original', deduplicated: true });
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('text the store can keep is kept exactly', () => {
  it('surrogate pairs (astral characters) round-trip through the database', async () => {
    const title = 'ship it \ud83d\ude80 \u{1f9ea}';
    const created = (await restCreate({ title, description: '\u{10ffff}' })).json as { id: string };
    const stored = await db.one<{ title: string; description: string }>(
      'SELECT title, description FROM tasks WHERE id = $1',
      [created.id],
    );
    expect(stored).toEqual({ title, description: '\u{10ffff}' });
  });

  it('NUL is refused with the field named, before the database (which refused it without saying where)', async () => {
    const before = await tableCounts(db);
    const r = await restCreate({ title: 'T', description: 'a\u0000b' });
    expect([r.status, r.json]).toEqual([
      400,
      { error: 'invalid payload: description must not contain NUL (U+0000) characters' },
    ]);
    expect(await tableCounts(db)).toEqual(before);
  });
});

describe('a value too long is named with its limit, the same on REST, tRPC and MCP', () => {
  it('a 600-character title: `must be 500 characters or fewer`, never `title is required`', async () => {
    const words = 'invalid request: title: must be 500 characters or fewer';
    const title = 'x'.repeat(600);
    expect((await restCreate({ title })).json).toEqual({ error: words });
    expect(trpcMessage(await trpcCreate({ title }))).toBe(words);
    expect((await mcp.call('create_task', { workspace_id: ws.id, title })).json).toEqual({
      error: words,
      code: 'validation',
    });
  });

  it("characters are code points, as the published schemas' maxLength counts them: 500 emoji fit, 501 do not", async () => {
    const fits = await restCreate({ title: '\u{1f680}'.repeat(500) });
    expect(fits.status).toBe(200);
    const over = await restCreate({ title: '\u{1f680}'.repeat(501) });
    expect(over.json).toEqual({ error: 'invalid request: title: must be 500 characters or fewer' });
    const schema = (await call(api.url, 'GET', '/api/v1/openapi.json')).json as {
      components: { schemas: Record<string, { properties: Record<string, { maxLength?: number }> }> };
    };
    expect(schema.components.schemas.UpdateTaskRequest!.properties.title!.maxLength).toBe(500);
  });
});
