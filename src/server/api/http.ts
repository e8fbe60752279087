// tRPC over HTTP at /api/trpc (GET for queries, POST for mutations), served by the custom server — no Next
// pipeline in the way. The plain single call takes a Node-native path (./native-call.ts); everything else
// (batches from the console's httpBatchLink, SSE subscriptions, streaming, odd methods or content types)
// goes through tRPC's Node adapter, which wraps tRPC's fetch handler.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { ERRORS, isDomainError, toDomainError } from '../domain/errors/domain-error';
import { sendError } from '../http/body';
import type { ApiHandler } from '../http/types';
import type { Services } from '../services';
import { createContext } from './context';
import { tryNativeCall, type NativeCallOptions } from './native-call';
import { strictInputMiddleware } from './strict-input';
import { appRouter } from './root';

const BASE_PATH = '/api/trpc/';

/**
 * The fast path's switch and a count of the calls it answered. Tests turn it off to get the adapter's answer
 * for the same request, and read `served` to know which path answered (tests/integration/http/trpc-native.test.ts).
 */
export const trpcFastPath = { enabled: true, served: 0 };

interface TrpcHttp {
  adapter: ReturnType<typeof createHTTPHandler>;
  native: NativeCallOptions;
}

const perServices = new WeakMap<Services, TrpcHttp>();

/** The context for one HTTP call; the one place refusals get their tRPC code (both paths use it). */
async function contextFor(services: Services, req: IncomingMessage, res: ServerResponse) {
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
}

function trpcFor(services: Services): TrpcHttp {
  let t = perServices.get(services);
  if (!t) {
    // One limit for both paths, read once, as the adapter always did.
    const maxBodySize = services.config.http.maxBodyBytes;
    t = {
      adapter: createHTTPHandler({
        router: appRouter,
        basePath: BASE_PATH,
        maxBodySize,
        createContext: ({ req, res }) => contextFor(services, req, res),
        // Issue 18: the adapter would decode the body like Fetch (bad bytes → U+FFFD); it gets it pre-read and strict.
        middleware: strictInputMiddleware(maxBodySize),
      }),
      native: { router: appRouter, basePath: BASE_PATH, maxBodySize, createContext: (req, res) => contextFor(services, req, res) },
    };
    perServices.set(services, t);
  }
  return t;
}

export const handleTrpc: ApiHandler = async (req, res, services) => {
  try {
    const t = trpcFor(services);
    // issue 4: the adapter's Request/Response conversion made a tRPC call 2–3x slower than the same REST call;
    // the plain single query or mutation is answered on the Node objects, with the adapter's exact response.
    if (trpcFastPath.enabled && (await tryNativeCall(req, res, t.native))) {
      trpcFastPath.served++;
      return;
    }
    // Authentication failures (CSRF, rate limit) surface from createContext; tRPC reports them as errors.
    await new Promise<void>((resolve) => {
      res.once('finish', resolve);
      res.once('close', resolve);
      t.adapter(req, res);
    });
  } catch (err) {
    sendError(res, err, services);
  }
};
