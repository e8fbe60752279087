// The authentication step every machine-facing edge shares (REST, tRPC, MCP): who is calling, whether a
// cookie-authenticated mutation carries its CSRF proof, and the per-actor rate limit (SPEC §11).
import type { IncomingMessage } from 'node:http';
import { authenticate, type Authenticated } from '../auth/authenticate';
import { DomainError } from '../domain/errors/domain-error';
import type { Services } from '../services';

/** Null when no credential was presented (or it failed): the edge answers 401. */
export async function authenticateRequest(services: Services, req: IncomingMessage): Promise<Authenticated | null> {
  const auth = await authenticate(services, req.headers, { method: req.method ?? 'GET' });
  if (!auth) return null;
  const entry = services.requests.of(req);
  if (entry) entry.actorId = auth.actor.id; // the request's log line says who acted
  if (!auth.csrfOk) throw new DomainError('csrf_failed');
  const decision = services.rateLimiter.take(auth.actor.id);
  if (!decision.ok)
    throw new DomainError('rate_limited', undefined, { 'retry-after': String(decision.retryAfterSeconds) });
  return auth;
}

export async function requireAuthenticated(services: Services, req: IncomingMessage): Promise<Authenticated> {
  const auth = await authenticateRequest(services, req);
  if (!auth) throw new DomainError('unauthenticated');
  return auth;
}
