// SPEC §11: API tokens may expire and show when they were last used. An expired token is refused exactly like a
// revoked one — also when this process had just cached it (TETHER_TOKEN_CACHE_MS) — and the last-used time is
// written by the process at most once a minute, never by the request itself: a Found create stays write-free (SPEC
// §4.1). The console's procedures and the CLI show both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../../../src/server/api/root';
import { createContextInner } from '../../../src/server/api/context';
import { createCallerFactory } from '../../../src/server/api/trpc';
import type { Db } from '../../../src/server/db/types';
import { createApiToken, revokeApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { TokenCache } from '../../../src/server/domain/tokens/token-cache';
import { runTether } from '../../support/processes';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq, userActor, type TestWorkspace } from '../../support/fixtures';
import { call, startTestApi, type TestApi } from '../../support/http';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;

beforeAll(async () => {
  db = await freshDb();
  // A token cache that would keep a verified token a whole minute (the product caps it at 2 s, TETHER_TOKEN_CACHE_MS):
  // whatever it keeps, an expired token must not be served from it.
  api = await startTestApi(db, { tokenCache: new TokenCache(60_000) });
  ws = await makeWorkspace(db);
});
afterAll(async () => api.close());

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

async function token(expiresAt: string | null = null): Promise<{ id: string; token: string }> {
  return createApiToken(api.services.store, {
    name: uniq('t'),
    workspaceIds: [ws.id],
    scopes: ['tasks:read', 'tasks:write'],
    expiresAt,
  });
}

const listTasks = (bearer: string) => call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: bearer });

describe('expiry', () => {
  it('an expired token is 401 exactly like a revoked one, even right after this process cached it', async () => {
    await listTasks((await token()).token); // warm the path, so the request below lands well before the expiry
    const expiring = await token(new Date(Date.now() + 4000).toISOString());
    expect((await listTasks(expiring.token)).status).toBe(200); // verified and cached now
    await sleep(
      Date.parse(
        (await db.one<{ expires_at: string }>('SELECT expires_at FROM api_tokens WHERE id = $1', [expiring.id]))!
          .expires_at,
      ) -
        Date.now() +
        200,
    );
    const expired = await listTasks(expiring.token);
    const revoked = await token();
    await revokeApiToken(api.services.store, revoked.id, api.services.tokenCache);
    const refused = await listTasks(revoked.token);
    expect([expired.status, expired.text]).toEqual([refused.status, refused.text]);
    expect(expired.status).toBe(401);
  });

  it('an expiry in the past, or that is not a time, is refused and nothing is stored', async () => {
    const before = await db.query('SELECT id FROM api_tokens');
    await expect(token('2020-01-01T00:00:00Z')).rejects.toThrow('invalid request: expires at: must be in the future');
    await expect(token('next tuesday')).rejects.toThrow(/^invalid request: expires at: an ISO 8601 date or time/);
    expect(await db.query('SELECT id FROM api_tokens')).toEqual(before);
  });
});

describe('last used', () => {
  it('a Found create writes nothing to the token (SPEC §4.1); the process records the use afterwards', async () => {
    const t = await token();
    const body = { workspace_id: ws.id, external_id: uniq('found-'), title: 'once' };
    expect((await call(api.url, 'POST', '/api/v1/tasks', { token: t.token, body })).status).toBe(200);
    await api.services.tokenUsage.flush(); // the Created above is recorded; what follows is the Found alone
    const before = await db.one('SELECT * FROM api_tokens WHERE id = $1', [t.id]);
    const found = await call(api.url, 'POST', '/api/v1/tasks', { token: t.token, body });
    expect((found.json as { deduplicated: boolean }).deduplicated).toBe(true);
    expect(await db.one('SELECT * FROM api_tokens WHERE id = $1', [t.id])).toEqual(before);
    const usedAt = Date.now();
    await api.services.tokenUsage.flush(); // what the process does once a minute (and when it stops)
    const after = await db.one<{ last_used_at: string }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [t.id]);
    expect(Math.abs(Date.parse(after!.last_used_at) - usedAt)).toBeLessThan(5_000);
  });

  it('a token never used says so; a time never moves back', async () => {
    const t = await token();
    expect(await db.one('SELECT last_used_at FROM api_tokens WHERE id = $1', [t.id])).toEqual({ last_used_at: null });
    const late = new Date().toISOString();
    await api.services.store.tokens.recordUse([{ id: t.id, at: late }]);
    await api.services.store.tokens.recordUse([{ id: t.id, at: new Date(Date.now() - 60_000).toISOString() }]);
    const row = await db.one<{ last_used_at: string }>('SELECT last_used_at FROM api_tokens WHERE id = $1', [t.id]);
    expect(new Date(row!.last_used_at).toISOString()).toBe(late);
  });
});

describe('the console (admin.createToken, admin.tokens)', () => {
  const admin = userActor({}, true);
  const caller = () =>
    createCallerFactory(appRouter)(createContextInner({ services: api.services, actor: admin, source: 'console' }));

  it('creates a token with an expiry and lists both times', async () => {
    const expiresAt = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const created = await caller().admin.createToken({
      workspace_id: ws.id,
      name: 'expiring bot',
      scopes: ['tasks:read'],
      expires_at: expiresAt,
    });
    expect((await listTasks(created.token)).status).toBe(200);
    await api.services.tokenUsage.flush();
    const listed = (await caller().admin.tokens({ workspace_id: ws.id })).find((t) => t.id === created.id);
    expect(listed).toMatchObject({ expires_at: expiresAt, last_used_at: expect.stringMatching(/Z$/) });
    const forever = await caller().admin.createToken({
      workspace_id: ws.id,
      name: 'forever bot',
      scopes: ['tasks:read'],
    });
    expect((await caller().admin.tokens({ workspace_id: ws.id })).find((t) => t.id === forever.id)).toMatchObject({
      expires_at: null,
      last_used_at: null,
    });
  });

  it('refuses an expiry in the past with the same words', async () => {
    await expect(
      caller().admin.createToken({
        workspace_id: ws.id,
        name: 'late',
        scopes: ['tasks:read'],
        expires_at: '2001-01-01T00:00:00.000Z',
      }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST', message: 'invalid request: expires at: must be in the future' });
  });
});

describe('tether token create --expires-in / --expires-at, and token list', () => {
  const tether = (args: string[]) => runTether(args, { DATABASE_URL: db.url });
  const create = (...extra: string[]) =>
    tether([
      'token',
      'create',
      '--name',
      uniq('cli'),
      '--workspace',
      ws.id,
      '--scope',
      'tasks:read',
      '--json',
      ...extra,
    ]);

  it('sets the expiry from a duration or a time, and lists it with the last-used time and status', async () => {
    const started = Date.now();
    const inThirty = await create('--expires-in', '30d');
    expect(inThirty.code).toBe(0);
    const a = JSON.parse(inThirty.stdout) as { id: string; expires_at: string };
    expect(Date.parse(a.expires_at) - started).toBeGreaterThanOrEqual(30 * 86_400_000);
    expect(Date.parse(a.expires_at) - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    const atDate = JSON.parse((await create('--expires-at', '2099-01-31')).stdout) as {
      id: string;
      expires_at: string;
    };
    expect(atDate.expires_at).toBe('2099-01-31T00:00:00.000Z');
    // One that has expired (written directly: the CLI refuses a past time).
    const old = await token();
    await db.run('UPDATE api_tokens SET expires_at = $2 WHERE id = $1', [
      old.id,
      new Date(Date.now() - 1000).toISOString(),
    ]);

    const listed = JSON.parse((await tether(['token', 'list', '--json'])).stdout) as Array<{
      id: string;
      expires_at: string | null;
      last_used_at: string | null;
      status: string;
    }>;
    const byId = new Map(listed.map((t) => [t.id, t]));
    expect(byId.get(a.id)).toMatchObject({ expires_at: a.expires_at, last_used_at: null, status: 'active' });
    expect(byId.get(atDate.id)).toMatchObject({ expires_at: '2099-01-31T00:00:00.000Z', status: 'active' });
    expect(byId.get(old.id)).toMatchObject({ status: 'expired' });
    const human = await tether(['token', 'list']);
    expect(human.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+SCOPES\s+EXPIRES\s+LAST USED\s+STATUS/);
  }, 180_000); // four CLI runs, each a process of its own: slow on a busy machine

  it.each([
    [
      ['--expires-in', '30d', '--expires-at', '2099-01-01'],
      'invalid request: give --expires-in or --expires-at, not both',
    ],
    [
      ['--expires-in', '0d'],
      'invalid request: expires in: a positive whole number of m, h, d or w, e.g. 30d (got "0d")',
    ],
    [
      ['--expires-in', 'a month'],
      'invalid request: expires in: a positive whole number of m, h, d or w, e.g. 30d (got "a month")',
    ],
    [['--expires-at', '2001-01-01'], 'invalid request: expires at: must be in the future'],
  ])('refuses %j in one line, storing nothing', { timeout: 120_000 }, async (extra, message) => {
    const before = await db.query('SELECT id FROM api_tokens');
    const r = await create(...extra);
    expect([r.code, r.stdout, r.stderr.trim()]).toEqual([1, '', `error: ${message}`]);
    expect(await db.query('SELECT id FROM api_tokens')).toEqual(before);
  });
});
