// SPEC §11: access hardening, one behaviour per test — tokens stored hashed, revocation takes
// effect at once here and within the cache bound elsewhere, per-token rate limiting (429 + Retry-After), secure
// session cookie flags, CSRF on cookie-authenticated mutations (cross-site form posts), and releases recorded
// with actor and source. (Constant-time comparison: tests/unit/hostile/secrets.test.ts.)
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digest } from '../../../src/server/auth/secrets';
import { createSession, SESSION_COOKIE } from '../../../src/server/auth/session';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import type { Db } from '../../../src/server/db/types';
import { createApiToken, parseApiToken, revokeApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { createUser } from '../../../src/server/domain/users/create-user';
import { freshDatabaseUrl } from '../../support/db';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { startServerProcess, type ServerProcess } from '../../support/processes';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let child: ServerProcess;
let ws: TestWorkspace;
let token: string;
let user: { id: string; email: string };
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  const url = await freshDatabaseUrl();
  db = openDb(url);
  await migrate(db);
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  user = await createUser(api.services.store, {
    email: `${uniq('op')}@example.com`,
    password: PASSWORD,
    role: 'operator',
    workspaceIds: [ws.id],
  });
  // A second, separate server process: its own token cache and a deliberately tiny rate limit.
  child = await startServerProcess({ DATABASE_URL: url, TETHER_RATE_LIMIT_PER_SEC: '2', TETHER_RATE_LIMIT_BURST: '3' });
}, 120_000);
afterAll(async () => {
  await child?.stop();
  await api?.close();
  await db?.close();
});

const createBody = () => ({ workspace_id: ws.id, external_id: uniq('acc-'), title: 'T' });

describe('API tokens', () => {
  it('are stored as a digest only: no column of the row holds the secret or the token', async () => {
    const { id, token: shown } = await createApiToken(api.services.store, {
      name: uniq('h'),
      workspaceIds: [ws.id],
      scopes: ['tasks:read'],
    });
    const row = await db.one<Record<string, unknown>>('SELECT * FROM api_tokens WHERE id = $1', [id]);
    const secret = parseApiToken(shown)!.secret;
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(shown);
    expect(row!.secret_hash).toBe(digest(secret));
  });

  it('a revoked token stops working on the very next request to the same process', async () => {
    const { id, token: t } = await createApiToken(api.services.store, {
      name: uniq('r'),
      workspaceIds: [ws.id],
      scopes: ['tasks:read'],
    });
    expect((await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: t })).status).toBe(200);
    await revokeApiToken(api.services.store, id, api.services.tokenCache);
    const after = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: t });
    expect(after.status).toBe(401);
    expect(after.json).toEqual({ error: 'authentication required' });
  });

  it('a token revoked by another process stops working within the 2 s cache bound', async () => {
    const { id, token: t } = await createApiToken(api.services.store, {
      name: uniq('x'),
      workspaceIds: [ws.id],
      scopes: ['tasks:read'],
    });
    // Warm the child's cache, then revoke from this process (like the CLI would).
    expect((await call(child.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: t })).status).toBe(200);
    await revokeApiToken(api.services.store, id);
    const revokedAt = Date.now();
    let status = 200;
    // Poll slower than the child's 2/s rate limit so a 429 cannot mask the answer.
    while (status !== 401 && Date.now() - revokedAt < 6000) {
      await new Promise((r) => setTimeout(r, 600));
      status = (await call(child.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: t })).status;
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(2000 + 1500);
  });
});

describe('per-token rate limiting (2/s, burst 3, in a dedicated process)', () => {
  it('answers 429 with Retry-After once the bucket is empty, and writes nothing for the refused creates', async () => {
    const t = await makeToken(db, [ws.id]);
    const before = await tableCounts(db);
    const rs = await Promise.all(
      Array.from({ length: 8 }, () => call(child.url, 'POST', '/api/v1/tasks', { token: t, body: createBody() })),
    );
    const limited = rs.filter((r) => r.status === 429);
    const ok = rs.filter((r) => r.status === 200);
    expect(limited.length).toBeGreaterThanOrEqual(4);
    expect(ok.length).toBeLessThanOrEqual(4);
    for (const r of limited) {
      expect(r.json).toEqual({ error: 'too many requests' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Only the admitted creates wrote anything.
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks')).toBe(before.tasks! + ok.length);
  });

  it('limits per token: another token is still served while the first is limited', async () => {
    const a = await makeToken(db, [ws.id], ['tasks:read']);
    const b = await makeToken(db, [ws.id], ['tasks:read']);
    await Promise.all(
      Array.from({ length: 6 }, () => call(child.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: a })),
    );
    expect((await call(child.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: a })).status).toBe(429);
    expect((await call(child.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token: b })).status).toBe(200);
  });

  it('tRPC answers 429 with Retry-After too', async () => {
    const t = await makeToken(db, [ws.id], ['tasks:read']);
    const rs = await Promise.all(
      Array.from({ length: 6 }, () => trpc(child.url, 'query', 'task.list', { workspace_id: ws.id }, t)),
    );
    const limited = rs.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('the console session cookie', () => {
  const login = () =>
    call(api.url, 'POST', '/api/trpc/session.login', { body: { email: user.email, password: PASSWORD } });

  it('is HttpOnly, SameSite=Lax, Path=/ and not Secure over plain http', async () => {
    const r = await login();
    expect(r.status).toBe(200);
    const c = r.headers.get('set-cookie')!;
    expect(c).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{20,}`));
    expect(c).toMatch(/; HttpOnly/);
    expect(c).toMatch(/; SameSite=Lax/);
    expect(c).toMatch(/; Path=\//);
    expect(c).not.toMatch(/Secure/);
  });

  it('is Secure when TETHER_SECURE_COOKIES=1 (behind a TLS proxy)', async () => {
    // The server reads config.http.secureCookies (TETHER_SECURE_COOKIES) per request.
    api.services.config.http.secureCookies = true;
    try {
      expect((await login()).headers.get('set-cookie')).toMatch(/; Secure/);
    } finally {
      api.services.config.http.secureCookies = false;
    }
  });

  it('stores only a digest of the cookie value', async () => {
    const value = /tether_session=([^;]+)/.exec((await login()).headers.get('set-cookie')!)![1]!;
    expect(await count(db, 'SELECT COUNT(*) AS n FROM sessions WHERE id_hash = $1', [value])).toBe(0);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM sessions WHERE id_hash = $1', [digest(value)])).toBe(1);
  });
});

describe('CSRF: a cross-site form post carrying the session cookie is refused (SPEC §11)', () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = `${SESSION_COOKIE}=${(await createSession(api.services.store, user.id)).cookieValue}`;
  });
  // What a hostile page's <form method=post> sends: a simple content type, a foreign Origin, no custom header.
  const formHeaders = () => ({
    cookie,
    origin: 'https://evil.example',
    'content-type': 'application/x-www-form-urlencoded',
  });

  it('REST create: 403 and nothing written', async () => {
    const before = await tableCounts(db);
    const r = await call(api.url, 'POST', '/api/v1/tasks', {
      headers: formHeaders(),
      rawBody: `workspace_id=${ws.id}&title=T`,
    });
    expect(r.status).toBe(403);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('REST release (DELETE): 403 and no release recorded', async () => {
    const before = await tableCounts(db);
    const r = await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=x`, {
      headers: { ...formHeaders(), 'idempotency-key': randomUUID() },
    });
    expect(r.status).toBe(403);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('tRPC mutation posted cross-site (form or text/plain): refused and nothing written', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/json']) {
      const before = await tableCounts(db);
      const r = await call(api.url, 'POST', '/api/trpc/task.create', {
        headers: { ...formHeaders(), 'content-type': type },
        rawBody: JSON.stringify(createBody()),
      });
      // tRPC itself refuses non-JSON content types (415) before authentication; JSON meets the CSRF check (403).
      expect([403, 415], type).toContain(r.status);
      expect(await tableCounts(db)).toEqual(before);
    }
  });

  it('Origin: null (sandboxed frame) is refused even with the right CSRF token', async () => {
    const csrf = (await createSession(api.services.store, user.id)).csrfToken;
    const r = await call(api.url, 'POST', '/api/v1/tasks', {
      headers: { cookie, origin: 'null', 'x-csrf-token': csrf },
      body: createBody(),
    });
    expect(r.status).toBe(403);
  });
});

describe('release audit (SPEC §7, §11): every release records who and from where', () => {
  async function held(): Promise<string> {
    const ext = uniq('aud-');
    expect(
      (
        await call(api.url, 'POST', '/api/v1/tasks', {
          token,
          body: { workspace_id: ws.id, external_id: ext, title: 'T' },
        })
      ).status,
    ).toBe(200);
    return ext;
  }
  const recorded = (key: string) =>
    db.one<{ actor_id: string; source: string }>(
      'SELECT actor_id, source FROM release_operations WHERE workspace_id = $1 AND idempotency_key = $2',
      [ws.id, key],
    );

  it('REST with a token: actor is the token, source rest', async () => {
    const key = randomUUID();
    const ext = await held();
    const r = await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
      token,
      headers: { 'idempotency-key': key },
    });
    expect(r.status).toBe(204);
    expect(await recorded(key)).toEqual({ actor_id: parseApiToken(token)!.id, source: 'rest' });
  });

  it('tRPC with a token: source trpc', async () => {
    const key = randomUUID();
    const r = await trpc(
      api.url,
      'mutation',
      'task.releaseExternalId',
      { workspace_id: ws.id, external_id: await held(), idempotency_key: key },
      token,
    );
    expect(r.status).toBe(200);
    expect(await recorded(key)).toEqual({ actor_id: parseApiToken(token)!.id, source: 'trpc' });
  });

  it('the console (session cookie + CSRF token): actor is the user, source console', async () => {
    const key = randomUUID();
    const s = await createSession(api.services.store, user.id);
    const r = await call(
      api.url,
      'DELETE',
      `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${await held()}`,
      {
        headers: { cookie: `${SESSION_COOKIE}=${s.cookieValue}`, 'x-csrf-token': s.csrfToken, 'idempotency-key': key },
      },
    );
    expect(r.status).toBe(204);
    expect(await recorded(key)).toEqual({ actor_id: user.id, source: 'console' });
  });
});
