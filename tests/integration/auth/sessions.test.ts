// SPEC §11: console sessions — only a digest of the cookie is stored, 12-hour lifetime, destroyable.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, destroySession, SESSION_TTL_MS, verifySession } from '../../../src/server/auth/session';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq } from '../../support/fixtures';

describe('sessions (SPEC §11)', () => {
  let db: Db;
  let userId: string;
  let workspaceId: string;
  beforeAll(async () => {
    db = await freshDb();
    workspaceId = (await makeWorkspace(db)).id;
    userId = (await createUser(db, { email: `${uniq('op')}@example.com`, role: 'operator', workspaceIds: [workspaceId] })).id;
  });
  afterAll(async () => db?.close());

  it('verifies a new session with the user, roles and CSRF token', async () => {
    const s = await createSession(db, userId);
    const v = await verifySession(db, s.cookieValue);
    expect(v).toMatchObject({ userId, isAdmin: false, csrfToken: s.csrfToken, expiresAt: s.expiresAt });
    expect([...v!.roles]).toEqual([[workspaceId, 'operator']]);
  });

  it('expires 12 hours after creation', async () => {
    const t0 = new Date();
    const s = await createSession(db, userId, t0);
    expect(Date.parse(s.expiresAt) - t0.getTime()).toBe(SESSION_TTL_MS);
    expect(await verifySession(db, s.cookieValue, new Date(t0.getTime() + SESSION_TTL_MS - 1000))).not.toBeNull();
    expect(await verifySession(db, s.cookieValue, new Date(t0.getTime() + SESSION_TTL_MS))).toBeNull();
  });

  it('stops verifying once destroyed', async () => {
    const s = await createSession(db, userId);
    await destroySession(db, s.cookieValue);
    expect(await verifySession(db, s.cookieValue)).toBeNull();
  });

  it('stores only a digest of the cookie value', async () => {
    const s = await createSession(db, userId);
    const rows = await db.query('SELECT * FROM sessions WHERE user_id = $1', [userId]);
    expect(JSON.stringify(rows)).not.toContain(s.cookieValue);
  });

  it('refuses unknown and malformed cookie values', async () => {
    expect(await verifySession(db, 'A'.repeat(43))).toBeNull();
    expect(await verifySession(db, "x' OR 1=1 --")).toBeNull();
    expect(await verifySession(db, undefined)).toBeNull();
  });
});
