// SPEC §11: console sessions — only a digest of the cookie is stored, 12-hour lifetime, destroyable.
import { createSession, destroySession, SESSION_TTL_MS, verifySession } from '../../../src/server/auth/session';
import { createUser } from '../../../src/server/domain/users/create-user';
import { describe, expect, it as base } from '../../support/database-test';
import { uniq } from '../../support/fixtures';

// An operator of the file's workspace, whose sessions the tests make.
const it = base.extend(
  'userId',
  { scope: 'file' },
  async ({ store, ws }) =>
    (await createUser(store, { email: `${uniq('op')}@example.com`, role: 'operator', workspaceIds: [ws.id] })).id,
);

describe('sessions (SPEC §11)', () => {
  it('verifies a new session with the user, roles and CSRF token', async ({ store, ws, userId }) => {
    const s = await createSession(store, userId);
    const v = await verifySession(store, s.cookieValue);
    expect(v).toMatchObject({ userId, isAdmin: false, csrfToken: s.csrfToken, expiresAt: s.expiresAt });
    expect([...v!.roles]).toEqual([[ws.id, 'operator']]);
  });

  it('expires 12 hours after creation', async ({ store, userId }) => {
    const t0 = new Date();
    const s = await createSession(store, userId, t0);
    expect(Date.parse(s.expiresAt) - t0.getTime()).toBe(SESSION_TTL_MS);
    expect(await verifySession(store, s.cookieValue, new Date(t0.getTime() + SESSION_TTL_MS - 1000))).not.toBeNull();
    expect(await verifySession(store, s.cookieValue, new Date(t0.getTime() + SESSION_TTL_MS))).toBeNull();
  });

  it('stops verifying once destroyed', async ({ store, userId }) => {
    const s = await createSession(store, userId);
    await destroySession(store, s.cookieValue);
    expect(await verifySession(store, s.cookieValue)).toBeNull();
  });

  it('stores only a digest of the cookie value', async ({ db, store, userId }) => {
    const s = await createSession(store, userId);
    const rows = await db.query('SELECT * FROM sessions WHERE user_id = $1', [userId]);
    expect(JSON.stringify(rows)).not.toContain(s.cookieValue);
  });

  it('costs one statement to verify (session, user and roles together), none for a malformed value', async ({
    db,
    store,
    userId,
  }) => {
    const s = await createSession(store, userId);
    const before = db.stats.statements;
    expect(await verifySession(store, s.cookieValue)).not.toBeNull();
    expect(db.stats.statements - before).toBe(1);
    expect(await verifySession(store, 'not a cookie value')).toBeNull();
    expect(db.stats.statements - before).toBe(1);
  });

  it('refuses unknown and malformed cookie values', async ({ store }) => {
    expect(await verifySession(store, 'A'.repeat(43))).toBeNull();
    expect(await verifySession(store, "x' OR 1=1 --")).toBeNull();
    expect(await verifySession(store, undefined)).toBeNull();
  });
});
