// SPEC §11: every edge authenticates through one function — bearer token first, else the session cookie,
// else null (401). The Actor it builds decides access via can().
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { can } from '../../../src/server/domain/access';
import { authenticate } from '../../../src/server/auth/authenticate';
import { createSession } from '../../../src/server/auth/session';
import type { Store } from '../../../src/server/db/store';
import type { Db } from '../../../src/server/db/types';
import { TokenCache } from '../../../src/server/domain/tokens/token-cache';
import { createApiToken, revokeApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { createUser } from '../../../src/server/domain/users/create-user';
import { setMembership } from '../../../src/server/domain/users/memberships';
import { freshDb, storeFor } from '../../support/db';
import { makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';

describe('authenticate (SPEC §11)', () => {
  let db: Db;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let store: Store;
  let auth$: { store: Store; tokenCache: TokenCache };
  beforeAll(async () => {
    db = await freshDb();
    store = storeFor(db);
    auth$ = { store, tokenCache: new TokenCache(2000) };
    a = await makeWorkspace(db);
    b = await makeWorkspace(db);
  });
  afterAll(async () => db?.close());

  const email = () => `${uniq('u')}@example.com`;
  const asCookie = async (userId: string) => {
    const s = await createSession(store, userId);
    return { s, headers: { cookie: `theme=dark; tether_session=${s.cookieValue}`, host: 'localhost:3000' } };
  };

  it('builds a token actor with its grants and scopes', async () => {
    const { id, token } = await createApiToken(store, { name: 'bot', workspaceIds: [a.id], scopes: ['tasks:write'] });
    const auth = await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'POST' });
    expect(auth).toMatchObject({ via: 'token', csrfOk: true });
    expect(auth!.actor).toMatchObject({ kind: 'token', id, label: 'bot', global: false });
    expect([...auth!.actor.grants]).toEqual([a.id]);
    expect([...auth!.actor.scopes]).toEqual(['tasks:write']);
    expect([
      can(auth!.actor, a.id, 'write'),
      can(auth!.actor, a.id, 'release'),
      can(auth!.actor, b.id, 'read'),
    ]).toEqual([true, false, false]);
  });

  it('returns null for a revoked token on the next request', async () => {
    const { id, token } = await createApiToken(store, { name: 'bot', workspaceIds: [a.id], scopes: ['tasks:read'] });
    expect(await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'GET' })).not.toBeNull();
    await revokeApiToken(store, id, auth$.tokenCache);
    expect(await authenticate(auth$, { authorization: `Bearer ${token}` }, { method: 'GET' })).toBeNull();
  });

  it('does not fall back to the cookie when a bearer token is present but bad', async () => {
    const user = await createUser(store, { email: email(), role: 'admin' });
    const { headers } = await asCookie(user.id);
    expect(await authenticate(auth$, { ...headers, authorization: 'Bearer tth_nope' }, { method: 'GET' })).toBeNull();
  });

  it('builds a user actor with a role per membership from the session cookie', async () => {
    const user = await createUser(store, { email: email(), role: 'viewer', workspaceIds: [a.id] });
    await setMembership(store, { userId: user.id, workspaceId: b.id, role: 'operator' });
    const { headers } = await asCookie(user.id);
    const auth = await authenticate(auth$, headers, { method: 'GET' });
    expect(auth).toMatchObject({ via: 'cookie', csrfOk: true });
    expect(auth!.actor).toMatchObject({ kind: 'user', id: user.id, label: user.email, global: false });
    expect(Object.fromEntries(auth!.actor.roles)).toEqual({ [a.id]: 'viewer', [b.id]: 'operator' });
    expect([can(auth!.actor, a.id, 'write'), can(auth!.actor, b.id, 'release')]).toEqual([false, true]);
  });

  it('builds a global actor for an instance-wide admin', async () => {
    const user = await createUser(store, { email: email(), role: 'admin' });
    const auth = await authenticate(auth$, (await asCookie(user.id)).headers, { method: 'GET' });
    expect(auth!.actor.global).toBe(true);
    expect(can(auth!.actor, b.id, 'admin')).toBe(true);
  });

  it('marks a cookie mutation without the CSRF header as not ok', async () => {
    const user = await createUser(store, { email: email(), role: 'operator', workspaceIds: [a.id] });
    const { headers } = await asCookie(user.id);
    expect(
      (await authenticate(auth$, { ...headers, origin: 'https://evil.example' }, { method: 'POST' }))!.csrfOk,
    ).toBe(false);
  });

  it('marks a cookie mutation with the session CSRF token from the same origin as ok', async () => {
    const user = await createUser(store, { email: email(), role: 'operator', workspaceIds: [a.id] });
    const { s, headers } = await asCookie(user.id);
    const auth = await authenticate(
      auth$,
      { ...headers, origin: 'http://localhost:3000', 'x-csrf-token': s.csrfToken },
      { method: 'POST' },
    );
    expect(auth!.csrfOk).toBe(true);
  });

  it('returns null without credentials', async () => {
    expect(await authenticate(auth$, { host: 'localhost' }, { method: 'GET' })).toBeNull();
  });
});
