// Who is calling (SPEC §11), for every edge: a bearer API token first, else the console's session cookie.
// Null means unauthenticated → the edge answers 401. Authorization (404 for a workspace the actor may not
// see) is the domain's job via `can(actor, …)`.
//
// Cost: the token path is at most one SQL statement (token joined with its grants), none on a cache hit;
// the cookie path is one statement (session joined with user and memberships).
import type { Repositories } from '../db/store';
import type { TokenCache } from '../domain/tokens/token-cache';
import type { TokenUsage } from '../domain/tokens/token-usage';
import { verifyApiToken } from '../domain/tokens/api-tokens';
import type { VerifiedToken } from '../domain/tokens/token';
import type { Actor } from '../domain/access';
import { checkCsrf, isSafeMethod } from './csrf';
import { cookie, header, type HeaderBag } from './headers';
import { SESSION_COOKIE, verifySession, type Session } from './session';

export interface Authenticated {
  actor: Actor;
  via: 'token' | 'cookie';
  /**
   * False only for a cookie-authenticated unsafe method (POST, PUT, PATCH, DELETE) without a valid
   * CSRF proof (csrf.ts). Edges refuse such a request with `csrf_failed` before doing anything.
   */
  csrfOk: boolean;
  /** Present when `via === 'cookie'` (the console needs the CSRF token and expiry). */
  session?: Session;
}

export function tokenToActor(token: VerifiedToken): Actor {
  return {
    kind: 'token',
    id: token.id,
    label: token.name,
    global: false,
    roles: new Map(),
    grants: new Set(token.workspaceIds),
    scopes: new Set(token.scopes),
  };
}

export function sessionToActor(session: Session): Actor {
  return {
    kind: 'user',
    id: session.userId,
    label: session.email,
    global: session.isAdmin,
    roles: session.roles,
    grants: new Set(),
    scopes: new Set(),
  };
}

export async function authenticate(
  services: { store: Pick<Repositories, 'tokens' | 'sessions'>; tokenCache: TokenCache; tokenUsage?: TokenUsage },
  headers: HeaderBag,
  opts: { method: string },
): Promise<Authenticated | null> {
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) {
    // An explicit credential that fails is a 401 — never silently fall back to a cookie.
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const token = m ? await verifyApiToken(services.store, m[1]!, services.tokenCache, services.tokenUsage) : null;
    return token ? { actor: tokenToActor(token), via: 'token', csrfOk: true } : null;
  }
  const session = await verifySession(services.store, cookie(headers, SESSION_COOKIE));
  if (!session) return null;
  const csrfOk = isSafeMethod(opts.method) || checkCsrf(headers, session);
  return { actor: sessionToActor(session), via: 'cookie', csrfOk, session };
}
