// First-run onboarding (SPEC §11): while no user exists, the server prints a one-time setup URL on start; that URL
// creates the first admin and then stops working. Only sha256 of the token is stored.
import { digest, randomSecret } from '../../auth/secrets';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { createUser, MIN_PASSWORD_LENGTH } from './create-user';
import { normalizeEmail, type User } from './user';

type SetupStore = Pick<Repositories, 'users' | 'setupTokens'>;

/**
 * Called once at server start. Null when users exist (nothing to set up). Otherwise a fresh token, replacing
 * any unspent one, so only the URL printed by the latest start works.
 */
export async function issueSetupToken(store: SetupStore): Promise<string | null> {
  if (await store.users.any()) return null;
  const token = randomSecret();
  await store.setupTokens.replaceUnspent(digest(token), new Date().toISOString());
  return token;
}

/** Whether a presented setup token may still create the first admin. */
export async function setupTokenUsable(store: SetupStore, token: string): Promise<boolean> {
  if (!token || (await store.users.any())) return false;
  return store.setupTokens.isUnspent(digest(token));
}

/**
 * Spends the token and creates the first (instance-wide) admin. The conditional spend is the guard: of two
 * racing submissions exactly one spends the token. A refused token and "users already exist" answer the same.
 */
export async function completeSetup(
  store: SetupStore,
  input: { token: string; email: string; password: string },
): Promise<User> {
  // Validate first, so a typo does not burn the token.
  normalizeEmail(input.email);
  if ([...input.password].length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const hash = digest(input.token);
  if (!(await store.setupTokens.spendWhileNoUsers(hash, new Date().toISOString()))) {
    throw new DomainError('not_found', 'this setup link has already been used or is no longer valid');
  }
  try {
    return await createUser(store, { email: input.email, password: input.password, role: 'admin' });
  } catch (err) {
    // Nothing was created: give the link back so the person can correct the input.
    await store.setupTokens.unspend(hash);
    throw err;
  }
}
