// The authentication step every machine-facing edge shares (REST, tRPC, MCP): who is calling, whether a
// cookie-authenticated mutation carries its CSRF proof, and the per-actor rate limit (SPEC §11, issue 9).
import { authenticate, type Authenticated } from '../auth/authenticate';
import type { HeaderBag } from '../auth/headers';
import { DomainError } from '../domain/errors/domain-error';
import type { Services } from '../services';

/** Null when no credential was presented (or it failed): the edge answers 401. */
export async function authenticateRequest(
  services: Services,
  headers: HeaderBag,
  method: string,
): Promise<Authenticated | null> {
  const auth = await authenticate(services, headers, { method });
  if (!auth) return null;
  services.requests.noteActor(auth.actor.id); // the request's log line says who acted (issue 17)
  if (!auth.csrfOk) throw new DomainError('csrf_failed');
  const decision = services.rateLimiter.take(auth.actor.id);
  if (!decision.ok) throw new DomainError('rate_limited', undefined, { 'retry-after': String(decision.retryAfterSeconds) });
  return auth;
}

export async function requireAuthenticated(services: Services, headers: HeaderBag, method: string): Promise<Authenticated> {
  const auth = await authenticateRequest(services, headers, method);
  if (!auth) throw new DomainError('unauthenticated');
  return auth;
}
