// Console sessions (SPEC §11): a random cookie value of which only sha256 is stored, a CSRF token bound to
// the session, a fixed 12-hour lifetime (no sliding: a stolen cookie dies on schedule; sign in again).
import type { Repositories } from '../db/store';
import { ROLES, type Role } from '../domain/access';
import { digest, randomSecret } from './secrets';

type SessionStore = Pick<Repositories, 'sessions'>;

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

/** Signs a user in: a new session whose cookie value is returned once (only its digest is stored). */
export async function createSession(store: SessionStore, userId: string, now = new Date()): Promise<NewSession> {
  const cookieValue = randomSecret();
  const csrfToken = randomSecret();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS).toISOString();
  // Expired rows are useless; dropping them here keeps the table small without a sweeper.
  await store.sessions.deleteExpired(now.toISOString());
  await store.sessions.insert({
    idHash: digest(cookieValue),
    userId,
    csrfToken,
    expiresAt,
    createdAt: now.toISOString(),
  });
  return { cookieValue, csrfToken, expiresAt };
}

/** The live session for a cookie value, with the user's roles — one statement. Null when unknown or expired. */
export async function verifySession(
  store: SessionStore,
  cookieValue: string | undefined,
  now = new Date(),
): Promise<Session | null> {
  if (!cookieValue || !/^[A-Za-z0-9_-]{20,100}$/.test(cookieValue)) return null;
  const stored = await store.sessions.findWithUser(digest(cookieValue));
  if (!stored || Date.parse(stored.expiresAt) <= now.getTime()) return null;
  const roles = new Map<string, Role>();
  for (const m of stored.memberships) if (ROLES.includes(m.role as Role)) roles.set(m.workspaceId, m.role as Role);
  return {
    userId: stored.userId,
    email: stored.email,
    isAdmin: stored.isAdmin,
    roles,
    csrfToken: stored.csrfToken,
    expiresAt: stored.expiresAt,
  };
}

export async function destroySession(store: SessionStore, cookieValue: string): Promise<void> {
  await store.sessions.delete(digest(cookieValue));
}

/**
 * The `Set-Cookie` value for the session cookie. HttpOnly (no script reads it), SameSite=Lax (not sent on
 * cross-site subrequests or form posts), Secure when served over https. `maxAge` 0 with an empty value clears it.
 */
export function sessionCookie(value: string, opts: { secure: boolean; maxAge: number }): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    'HttpOnly',
    'SameSite=Lax',
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(opts.maxAge))}`,
  ];
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Whether cookies get the Secure flag: the request came over https, or the operator forces it (behind a TLS proxy). */
export function secureCookies(requestIsHttps: boolean, forced: boolean): boolean {
  return requestIsHttps || forced;
}
