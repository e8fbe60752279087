// Inner and outer context (STYLE habit 2). Tests call createContextInner with a real database and an actor;
// the HTTP edge's createContext only reads the bearer token or session cookie.
import type { IncomingMessage } from 'node:http';
import type { Actor } from '../auth/actor';
import { authenticateRequest } from '../http/authenticate-request';
import type { Services } from '../services';

export interface Context {
  services: Services;
  actor: Actor | null;
  /** For the audit record of releases (`trpc`, or `console` when a signed-in person acts). */
  source: string;
}

export function createContextInner(opts: { services: Services; actor: Actor | null; source?: string }): Context {
  return { services: opts.services, actor: opts.actor, source: opts.source ?? 'trpc' };
}

export async function createContext(services: Services, req: IncomingMessage): Promise<Context> {
  const auth = await authenticateRequest(services, req.headers, req.method ?? 'GET');
  return createContextInner({ services, actor: auth?.actor ?? null, source: auth?.via === 'cookie' ? 'console' : 'trpc' });
}
