// SPEC §11: every edge authenticates through one function — bearer token first, else the session cookie,
// else null (401). The Actor it builds decides access via can().
import { can } from '../../../src/server/domain/access';
import { authenticate } from '../../../src/server/auth/authenticate';
import { createSession } from '../../../src/server/auth/session';
import { TokenCache } from '../../../src/server/domain/tokens/token-cache';
import { createApiToken, revokeApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { createUser } from '../../../src/server/domain/users/create-user';
import { setMembership } from '../../../src/server/domain/users/memberships';
import { describe, expect, it as base } from '../../support/database-test';
import { uniq } from '../../support/fixtures';

// What authenticate reads through (the store and one token cache), and a session cookie for a user, with the request
// headers that carry it.
const it = base
  .extend('auth$', { scope: 'file' }, async ({ store }) => ({ store, tokenCache: new TokenCache(2000) }))
  .extend('asCookie', { scope: 'file' }, async ({ store }) => async (userId: string) => {
    const s = await createSession(store, userId);
    return { s, headers: { cookie: `theme=dark; tether_session=${s.cookieValue}`, host: 'localhost:3000' } };
  });
const email = () => `${uniq('u')}@example.com`;

describe('authenticate (SPEC §11)', () => {
  it('builds a token actor with its grants and scopes', async ({ store, ws, other, auth$ }) => {
    const { id, token } = await createApiToken(store, { name: 'bot', workspaceIds: [ws.id], scopes: ['tasks:write'] });
    const auth = await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'POST' });
    expect(auth).toMatchObject({ via: 'token', csrfOk: true });
    expect(auth!.actor).toMatchObject({ kind: 'token', id, label: 'bot', global: false });
    expect([...auth!.actor.grants]).toEqual([ws.id]);
    expect([...auth!.actor.scopes]).toEqual(['tasks:write']);
    expect([
      can(auth!.actor, ws.id, 'write'),
      can(auth!.actor, ws.id, 'release'),
      can(auth!.actor, other.id, 'read'),
    ]).toEqual([true, false, false]);
  });

  it('returns null for a revoked token on the next request', async ({ store, ws, auth$ }) => {
    const { id, token } = await createApiToken(store, { name: 'bot', workspaceIds: [ws.id], scopes: ['tasks:read'] });
    expect(await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'GET' })).not.toBeNull();
    await revokeApiToken(store, id, auth$.tokenCache);
    expect(await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'GET' })).toBeNull();
  });

  it('does not fall back to the cookie when a bearer token is present but bad', async ({ store, auth$, asCookie }) => {
    const user = await createUser(store, { email: email(), role: 'admin' });
    const { headers } = await asCookie(user.id);
    expect(await authenticate(auth$, { ...headers, authorization: 'Bearer tth_nope' }, { method: 'GET' })).toBeNull();
  });

  it('builds a user actor with a role per membership from the session cookie', async ({
    store,
    ws,
    other,
    auth$,
    asCookie,
  }) => {
    const user = await createUser(store, { email: email(), role: 'viewer', workspaceIds: [ws.id] });
    await setMembership(store, { userId: user.id, workspaceId: other.id, role: 'operator' });
    const { headers } = await asCookie(user.id);
    const auth = await authenticate(auth$, headers, { method: 'GET' });
    expect(auth).toMatchObject({ via: 'cookie', csrfOk: true });
    expect(auth!.actor).toMatchObject({ kind: 'user', id: user.id, label: user.email, global: false });
    expect(Object.fromEntries(auth!.actor.roles)).toEqual({ [ws.id]: 'viewer', [other.id]: 'operator' });
    expect([can(auth!.actor, ws.id, 'write'), can(auth!.actor, other.id, 'release')]).toEqual([false, true]);
  });

  it('builds a global actor for an instance-wide admin', async ({ store, other, auth$, asCookie }) => {
    const user = await createUser(store, { email: email(), role: 'admin' });
    const auth = await authenticate(auth$, (await asCookie(user.id)).headers, { method: 'GET' });
    expect(auth!.actor.global).toBe(true);
    expect(can(auth!.actor, other.id, 'admin')).toBe(true);
  });

  it('marks a cookie mutation without the CSRF header as not ok', async ({ store, ws, auth$, asCookie }) => {
    const user = await createUser(store, { email: email(), role: 'operator', workspaceIds: [ws.id] });
    const { headers } = await asCookie(user.id);
    expect(
      (await authenticate(auth$, { ...headers, origin: 'https://evil.example' }, { method: 'POST' }))!.csrfOk,
    ).toBe(false);
  });

  it('marks a cookie mutation with the session CSRF token from the same origin as ok', async ({
    store,
    ws,
    auth$,
    asCookie,
  }) => {
    const user = await createUser(store, { email: email(), role: 'operator', workspaceIds: [ws.id] });
    const { s, headers } = await asCookie(user.id);
    const auth = await authenticate(
      auth$,
      { ...headers, origin: 'http://localhost:3000', 'x-csrf-token': s.csrfToken },
      { method: 'POST' },
    );
    expect(auth!.csrfOk).toBe(true);
  });

  it('returns null without credentials', async ({ auth$ }) => {
    expect(await authenticate(auth$, { host: 'localhost' }, { method: 'GET' })).toBeNull();
  });
});
