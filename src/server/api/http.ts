// tRPC over HTTP at /api/trpc (GET for queries, POST for mutations), served by the custom server with tRPC's
// Node adapter (which wraps tRPC's fetch handler) — no Next pipeline in the way.
import { TRPCError } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { ERRORS, isDomainError } from '../domain/errors/domain-error';
import { maxBodyBytes, sendError, toDomainError } from '../http/body';
import type { ApiHandler } from '../http/types';
import type { Services } from '../services';
import { createContext } from './context';
import { appRouter } from './root';

const handlers = new WeakMap<Services, ReturnType<typeof createHTTPHandler>>();

function handlerFor(services: Services) {
  let h = handlers.get(services);
  if (!h) {
    h = createHTTPHandler({
      router: appRouter,
      basePath: '/api/trpc/',
      maxBodySize: maxBodyBytes(),
      createContext: async ({ req, res }) => {
        try {
          return await createContext(services, req, res);
        } catch (err) {
          // Refusals decided before any procedure runs (401/403 CSRF/429) keep their status and words. So does a
          // database that is away while authenticating: 503, not tRPC's default 500 (issue 9, outage test).
          const domain = isDomainError(err) ? err : toDomainError(err);
          if (domain.code === 'internal') throw err;
          // tRPC drops DomainError headers; a 429 must still say when to come back (Retry-After).
          for (const [k, v] of Object.entries(domain.headers ?? {})) res.setHeader(k, v);
          throw new TRPCError({ code: ERRORS[domain.code].trpc, message: domain.message, cause: domain });
        }
      },
    });
    handlers.set(services, h);
  }
  return h;
}

export const handleTrpc: ApiHandler = async (req, res, services) => {
  try {
    // Authentication failures (CSRF, rate limit) surface from createContext; tRPC reports them as errors.
    await new Promise<void>((resolve) => {
      res.once('finish', resolve);
      res.once('close', resolve);
      handlerFor(services)(req, res);
    });
  } catch (err) {
    sendError(res, err);
  }
};
