// First-run onboarding. The one-time setup token creates the first admin exactly once (SPEC §11).
// Each test gets its own database: "no users yet" is the state under test.
import { afterEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { completeSetup, issueSetupToken, setupTokenUsable } from '../../../src/server/domain/users/setup';
import { freshDb, storeFor } from '../../support/db';
import { count } from '../../support/fixtures';

describe('first-run setup token', () => {
  let db: Db | undefined;
  afterEach(async () => db?.close());
  const fresh = async () => storeFor((db = await freshDb()));

  it('creates the first instance-wide admin and is spent by it', async () => {
    const store = await fresh();
    const token = (await issueSetupToken(store))!;
    const user = await completeSetup(store, { token, email: 'Root@Example.test', password: 'long enough' });
    expect(user).toMatchObject({ email: 'root@example.test', isAdmin: true });
    expect(await setupTokenUsable(store, token)).toBe(false);
    await expect(
      completeSetup(store, { token, email: 'second@example.test', password: 'long enough' }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await count(store.driver, 'SELECT COUNT(*) AS n FROM users')).toBe(1);
  });

  it('stores only a digest of the token', async () => {
    const store = await fresh();
    const token = (await issueSetupToken(store))!;
    const rows = await store.driver.query<{ token_hash: string }>('SELECT token_hash FROM setup_tokens');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).not.toContain(token);
  });

  it('is not issued once any user exists', async () => {
    const store = await fresh();
    await createUser(store, { email: 'someone@example.test', role: 'admin' });
    expect(await issueSetupToken(store)).toBeNull();
  });

  it('only the newest token works after a restart', async () => {
    const store = await fresh();
    const first = (await issueSetupToken(store))!;
    const second = (await issueSetupToken(store))!;
    expect(await setupTokenUsable(store, first)).toBe(false);
    expect(await setupTokenUsable(store, second)).toBe(true);
  });

  it('a rejected input (short password) does not burn the token', async () => {
    const store = await fresh();
    const token = (await issueSetupToken(store))!;
    await expect(completeSetup(store, { token, email: 'root@example.test', password: 'short' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(await setupTokenUsable(store, token)).toBe(true);
  });

  it('of two racing submissions exactly one creates an admin', async () => {
    const store = await fresh();
    const token = (await issueSetupToken(store))!;
    const results = await Promise.allSettled([
      completeSetup(store, { token, email: 'a@example.test', password: 'long enough' }),
      completeSetup(store, { token, email: 'b@example.test', password: 'long enough' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await count(store.driver, 'SELECT COUNT(*) AS n FROM users')).toBe(1);
  });
});
