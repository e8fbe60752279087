// Console sign-in's credential check (the login page itself is the console issue's).
import { verifyPassword } from '../../auth/password';
import type { Repositories } from '../../db/store';
import type { User } from './user';

// Verified against when the email is unknown (or has no password), so "no such user" takes as long as "wrong
// password". A constant made once with hashPassword() at today's parameters; no password matches it.
const DECOY_HASH = 'scrypt$32768$8$1$FT4YunAZJkK_zcAhx9v7ew$GVKzbeqdLigKtX61I07FLpOMXH9OQoAtRiEhfhe0qpU';

/** The user when the email and password match, otherwise null (unknown email, no password set, wrong password). */
export async function checkUserPassword(
  store: Pick<Repositories, 'users'>,
  email: string,
  password: string,
): Promise<User | null> {
  const found = await store.users.findCredentials(email.trim().toLowerCase());
  if (!found || found.passwordHash === null) {
    await verifyPassword(password, DECOY_HASH);
    return null;
  }
  return (await verifyPassword(password, found.passwordHash)) ? found.user : null;
}
