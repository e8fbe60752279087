// Console sign-in's credential check (the login page itself is the console issue's).
import { hashPassword, verifyPassword } from '../../auth/password';
import type { Sql } from '../../db/types';
import { strOrNull } from '../../db/values';
import { rowToUser, USER_COLUMNS, type User } from './user';

// Verified against when the email is unknown, so "no such user" takes as long as "wrong password".
let decoy: Promise<string> | undefined;

/** The user when the email and password match, otherwise null (unknown email, no password set, wrong password). */
export async function checkUserPassword(db: Sql, email: string, password: string): Promise<User | null> {
  const row = await db.one(`SELECT ${USER_COLUMNS}, password_hash FROM users WHERE email = $1`, [email.trim().toLowerCase()]);
  const stored = row ? strOrNull(row.password_hash) : null;
  if (!row || stored === null) {
    decoy ??= hashPassword('decoy password that never matches');
    await verifyPassword(password, await decoy);
    return null;
  }
  return (await verifyPassword(password, stored)) ? rowToUser(row) : null;
}
