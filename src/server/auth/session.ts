// Console sessions (SPEC §11): a random cookie value of which only sha256 is stored, a CSRF token bound to
// the session, a fixed 12-hour lifetime (no sliding: a stolen cookie dies on schedule; sign in again).
import type { Sql } from '../db/types';
import { bool, str } from '../db/values';
import { ROLES, type Role } from './actor';
import { digest, randomSecret } from './secrets';

export const SESSION_COOKIE = 'tether_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface NewSession {
  /** The value to put in the `tether_session` cookie. Shown once; only its digest is stored. */
  cookieValue: string;
  csrfToken: string;
  expiresAt: string;
}

export interface Session {
  userId: string;
  email: string;
  /** The instance-wide admin flag (`users.is_admin`). */
  isAdmin: boolean;
  /** Role per workspace, from memberships. */
  roles: ReadonlyMap<string, Role>;
  csrfToken: string;
  expiresAt: string;
}

export async function createSession(db: Sql, userId: string, now = new Date()): Promise<NewSession> {
  const cookieValue = randomSecret();
  const csrfToken = randomSecret();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
  // Expired rows are useless; dropping them here keeps the table small without a sweeper.
  await db.run('DELETE FROM sessions WHERE expires_at < $1', [now.toISOString()]);
  await db.run('INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
    digest(cookieValue),
    userId,
    csrfToken,
    expiresAt,
    now.toISOString(),
  ]);
  return { cookieValue, csrfToken, expiresAt };
}

interface SessionRow {
  user_id: string;
  email: string;
  is_admin: unknown;
  csrf_token: string;
  expires_at: unknown;
  workspace_id: string | null;
  role: string | null;
}

/** The live session for a cookie value, with the user's roles — one statement. Null when unknown or expired. */
export async function verifySession(db: Sql, cookieValue: string | undefined, now = new Date()): Promise<Session | null> {
  if (!cookieValue || !/^[A-Za-z0-9_-]{20,100}$/.test(cookieValue)) return null;
  const rows = await db.query<SessionRow>(
    `SELECT s.user_id, u.email, u.is_admin, s.csrf_token, s.expires_at, m.workspace_id, m.role
       FROM sessions s
       JOIN users u ON u.id = s.user_id
       LEFT JOIN memberships m ON m.user_id = s.user_id
      WHERE s.id_hash = $1`,
    [digest(cookieValue)],
  );
  const first = rows[0];
  if (!first) return null;
  const expiresAt = str(first.expires_at);
  if (Date.parse(expiresAt) <= now.getTime()) return null;
  const roles = new Map<string, Role>();
  for (const row of rows) {
    if (row.workspace_id && ROLES.includes(row.role as Role)) roles.set(row.workspace_id, row.role as Role);
  }
  return { userId: first.user_id, email: first.email, isAdmin: bool(first.is_admin), roles, csrfToken: first.csrf_token, expiresAt };
}

export async function destroySession(db: Sql, cookieValue: string): Promise<void> {
  await db.run('DELETE FROM sessions WHERE id_hash = $1', [digest(cookieValue)]);
}

/**
 * The `Set-Cookie` value for the session cookie. HttpOnly (no script reads it), SameSite=Lax (not sent on
 * cross-site subrequests or form posts), Secure when served over https. `maxAge` 0 with an empty value clears it.
 */
export function sessionCookie(value: string, opts: { secure: boolean; maxAge: number }): string {
  const parts = [`${SESSION_COOKIE}=${value}`, 'HttpOnly', 'SameSite=Lax', 'Path=/', `Max-Age=${Math.max(0, Math.floor(opts.maxAge))}`];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Whether cookies get the Secure flag: the request came over https, or the operator forces it (behind a TLS proxy). */
export function secureCookies(requestIsHttps: boolean, forced: boolean): boolean {
  return requestIsHttps || forced;
}
