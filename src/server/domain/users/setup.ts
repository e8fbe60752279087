// First-run onboarding (issue 8, SPEC §11): while no user exists, the server prints a one-time setup URL on
// start; that URL creates the first admin and then stops working. Only sha256 of the token is stored.
import { digest, randomSecret } from '../../auth/secrets';
import type { Db, Sql } from '../../db/types';
import { num } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import { createUser, MIN_PASSWORD_LENGTH } from './create-user';
import { normalizeEmail, type User } from './user';

async function hasUsers(sql: Sql): Promise<boolean> {
  const row = await sql.one<{ n: unknown }>('SELECT COUNT(*) AS n FROM users');
  return num(row?.n ?? 0) > 0;
}

/**
 * Called once at server start. Null when users exist (nothing to set up). Otherwise a fresh token, replacing
 * any unspent one, so only the URL printed by the latest start works.
 */
export async function issueSetupToken(db: Db): Promise<string | null> {
  if (await hasUsers(db)) return null;
  const token = randomSecret();
  await db.transaction(async (tx) => {
    await tx.run('DELETE FROM setup_tokens WHERE used_at IS NULL');
    await tx.run('INSERT INTO setup_tokens (token_hash, created_at) VALUES ($1, $2)', [digest(token), new Date().toISOString()]);
  });
  return token;
}

/** Whether a presented setup token may still create the first admin. */
export async function setupTokenUsable(db: Sql, token: string): Promise<boolean> {
  if (!token || (await hasUsers(db))) return false;
  return !!(await db.one('SELECT token_hash FROM setup_tokens WHERE token_hash = $1 AND used_at IS NULL', [digest(token)]));
}

/**
 * Spends the token and creates the first (instance-wide) admin. The conditional UPDATE is the guard: of two
 * racing submissions exactly one spends the token. A refused token and "users already exist" answer the same.
 */
export async function completeSetup(db: Db, input: { token: string; email: string; password: string }): Promise<User> {
  // Validate first, so a typo does not burn the token.
  normalizeEmail(input.email);
  if ([...input.password].length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const hash = digest(input.token);
  const spent = await db.transaction(async (tx) => {
    if (await hasUsers(tx)) return 0;
    return tx.run('UPDATE setup_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL', [hash, new Date().toISOString()]);
  });
  if (spent === 0) throw new DomainError('not_found', 'this setup link has already been used or is no longer valid');
  try {
    return await createUser(db, { email: input.email, password: input.password, role: 'admin' });
  } catch (err) {
    // Nothing was created: give the link back so the person can correct the input.
    await db.run('UPDATE setup_tokens SET used_at = NULL WHERE token_hash = $1', [hash]);
    throw err;
  }
}
