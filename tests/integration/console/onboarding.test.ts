// Issue 8: first-run onboarding. The one-time setup token creates the first admin exactly once (SPEC §11).
// Each test gets its own database: "no users yet" is the state under test.
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { completeSetup, issueSetupToken, setupTokenUsable } from '../../../src/server/domain/users/setup';
import { freshDb } from '../../support/db';
import { count } from '../../support/fixtures';

describe('first-run setup token', () => {
  let db: Db | undefined;
  afterEach(async () => db?.close());

  it('creates the first instance-wide admin and is spent by it', async () => {
    db = await freshDb();
    const token = (await issueSetupToken(db))!;
    const user = await completeSetup(db, { token, email: 'Root@Example.test', password: 'long enough' });
    expect(user).toMatchObject({ email: 'root@example.test', isAdmin: true });
    expect(await setupTokenUsable(db, token)).toBe(false);
    await expect(completeSetup(db, { token, email: 'second@example.test', password: 'long enough' })).rejects.toMatchObject({ code: 'not_found' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM users')).toBe(1);
  });

  it('stores only a digest of the token', async () => {
    db = await freshDb();
    const token = (await issueSetupToken(db))!;
    const rows = await db.query<{ token_hash: string }>('SELECT token_hash FROM setup_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(token);
  });

  it('is not issued once any user exists', async () => {
    db = await freshDb();
    await createUser(db, { email: 'someone@example.test', role: 'admin' });
    expect(await issueSetupToken(db)).toBeNull();
  });

  it('only the newest token works after a restart', async () => {
    db = await freshDb();
    const first = (await issueSetupToken(db))!;
    const second = (await issueSetupToken(db))!;
    expect(await setupTokenUsable(db, first)).toBe(false);
    expect(await setupTokenUsable(db, second)).toBe(true);
  });

  it('a rejected input (short password) does not burn the token', async () => {
    db = await freshDb();
    const token = (await issueSetupToken(db))!;
    await expect(completeSetup(db, { token, email: 'root@example.test', password: 'short' })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await setupTokenUsable(db, token)).toBe(true);
  });

  it('of two racing submissions exactly one creates an admin', async () => {
    db = await freshDb();
    const token = (await issueSetupToken(db))!;
    const results = await Promise.allSettled([
      completeSetup(db, { token, email: 'a@example.test', password: 'long enough' }),
      completeSetup(db, { token, email: 'b@example.test', password: 'long enough' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM users')).toBe(1);
  });
});
