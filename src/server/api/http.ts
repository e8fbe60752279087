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

/** The context for one HTTP call; the one place refusals get their tRPC code (both paths use it). */
async function contextFor(services: Services, req: IncomingMessage, res: ServerResponse) {
  try {
    return await createContext(services, req, res);
  } catch (err) {
    // Refusals decided before any procedure runs (401/403 CSRF/429) keep their status and words. So does a database
    // that is away while authenticating: 503, not tRPC's default 500 (a database outage is never the caller's fault).
    const domain = isDomainError(err) ? err : toDomainError(err);
    if (domain.code === 'internal') throw err;
    // tRPC drops DomainError headers; a 429 must still say when to come back (Retry-After).
    for (const [k, v] of Object.entries(domain.headers ?? {})) res.setHeader(k, v);
    throw new TRPCError({ code: ERRORS[domain.code].trpc, message: domain.message, cause: domain });
  }
}

/**
 * tRPC's own Node adapter for one server: what answers batches, subscriptions and anything else the native path
 * declines. Tests also mount it alone, to hold the native path's answers to it byte for byte.
 */
export function createTrpcAdapter(services: Services): ApiHandler {
  const maxBodySize = services.config.http.maxBodyBytes;
  const adapter = createHTTPHandler({
    router: appRouter,
    basePath: BASE_PATH,
    maxBodySize,
    createContext: ({ req, res }) => contextFor(services, req, res),
    // The adapter would decode the body like Fetch: bad bytes → U+FFFD, so two ids would become one task. It gets the
    // body pre-read and strict.
    middleware: strictInputMiddleware(maxBodySize),
  });
  return async (req, res) => {
    try {
      // Authentication failures (CSRF, rate limit) surface from createContext; tRPC reports them as errors.
      await new Promise<void>((resolve) => {
        res.once('finish', resolve);
        res.once('close', resolve);
        adapter(req, res);
      });
    } catch (err) {
      sendError(res, err, services);
    }
  };
}

/**
 * The tRPC endpoint of one server, built once. It hangs on the server's routes, not in module scope, so two servers
 * in one process never share it.
 */
export function createTrpcHandler(services: Services): ApiHandler {
  const adapter = createTrpcAdapter(services);
  // One limit for both paths, read once, as the adapter reads it.
  const native: NativeCallOptions = {
    router: appRouter,
    basePath: BASE_PATH,
    maxBodySize: services.config.http.maxBodyBytes,
    createContext: (req, res) => contextFor(services, req, res),
  };
  return async (req, res) => {
    try {
      // The adapter's Request/Response conversion made a tRPC call 2–3x slower than the same REST call; the plain
      // single query or mutation is answered on the Node objects, with the adapter's exact response.
      if (await tryNativeCall(req, res, native)) return;
    } catch (err) {
      sendError(res, err, services);
      return;
    }
    await adapter(req, res, services);
  };
}
