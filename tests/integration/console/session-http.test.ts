// Console sign-in over tRPC HTTP (SPEC §11). The cookie is HttpOnly, `session.me` hands the page its
// CSRF token, and a cookie-authenticated mutation without that token is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq } from '../../support/fixtures';
import { call, startTestApi, type TestApi } from '../../support/http';

describe('session router over HTTP', () => {
  let db: Db;
  let api: TestApi;
  let email: string;
  beforeAll(async () => {
    db = await freshDb();
    api = await startTestApi(db);
    const ws = await makeWorkspace(db);
    email = `${uniq('op')}@example.test`;
    await createUser(api.services.store, { email, password: 'password-1', role: 'operator', workspaceIds: [ws.id] });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function login(password = 'password-1') {
    return call(api.url, 'POST', '/api/trpc/session.login', { body: { email, password } });
  }

  it('sets an HttpOnly, SameSite session cookie on sign-in', async () => {
    const res = await login();
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(
      /^tether_session=[\w-]+; HttpOnly; SameSite=Lax; Path=\/; Max-Age=43200$/,
    );
  });

  it('refuses a wrong password with 401 and sets no cookie', async () => {
    const res = await login('wrong password');
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('me returns the CSRF token of the cookie session, and null without one', async () => {
    const cookie = (await login()).headers.get('set-cookie')!.split(';')[0]!;
    const me = await call(api.url, 'GET', '/api/trpc/session.me', { headers: { cookie } });
    expect((me.json as { result: { data: { email: string; csrf_token: string } } }).result.data).toMatchObject({
      email,
    });
    const anon = await call(api.url, 'GET', '/api/trpc/session.me');
    expect((anon.json as { result: { data: unknown } }).result.data).toBeNull();
  });

  it('refuses sign-out without the CSRF header, and ends the session with it', async () => {
    const cookie = (await login()).headers.get('set-cookie')!.split(';')[0]!;
    const me = await call(api.url, 'GET', '/api/trpc/session.me', { headers: { cookie } });
    const csrf = (me.json as { result: { data: { csrf_token: string } } }).result.data.csrf_token;
    expect((await call(api.url, 'POST', '/api/trpc/session.logout', { headers: { cookie }, body: {} })).status).toBe(
      403,
    );
    const out = await call(api.url, 'POST', '/api/trpc/session.logout', {
      headers: { cookie, 'x-csrf-token': csrf },
      body: {},
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    const after = await call(api.url, 'GET', '/api/trpc/session.me', { headers: { cookie } });
    expect((after.json as { result: { data: unknown } }).result.data).toBeNull();
  });
});
