// The composition root of the HTTP side: the API routes and the HTTP server that mounts them, over Services built by
// create-services.ts. Only entry points (main, tests and the bench) import this file, so no module that Services is
// made of depends on it; the CLI builds Services alone and never loads the HTTP layers (tRPC, REST, MCP).
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Services } from './services';
import { createTrpcHandler } from './api/http';
import { sendError, sendJson } from './http/body';
import { handleConsoleExport } from './http/console-export';
import { handleHealth } from './http/health';
import { handleMetrics } from './http/metrics';
import { createRequestObserver } from './http/observe';
import { markPageRequest } from './http/page-origin';
import { TetherResponse } from './http/response';
import { routeLabel } from './http/route-label';
import {
  answerHalfClosedClients,
  answerNonPathTarget,
  CHECK_INTERVAL_MS,
  limitConnections,
  pathOf,
  under,
  type PageHandler,
  type Route,
} from './http/server';
import { handleFailpoints } from './http/test-hooks';
import { handleMcp } from './mcp/handler';
import type { RequestEntry } from './observability/request-scope';
import { handleRest } from './rest/router';

export function apiRoutes(services: Services): Route[] {
  const routes: Route[] = [
    { prefix: '/api/health', handler: handleHealth },
    { prefix: '/api/metrics', handler: handleMetrics }, // Prometheus, admins only
    { prefix: '/api/trpc', handler: createTrpcHandler(services) },
    { prefix: '/api/v1', handler: handleRest },
    { prefix: '/api/mcp', handler: handleMcp }, // SPEC §10: MCP (Streamable HTTP) mounts here.
    { prefix: '/api/console/export', handler: handleConsoleExport }, // SPEC §13: a console list as CSV or JSON
  ];
  // Test hooks exist only when enabled; otherwise the path falls through to the API 404 below.
  if (services.failpoints.enabled) routes.push({ prefix: '/api/_test/failpoints', handler: handleFailpoints });
  return routes;
}

/**
 * The process's one HTTP server. It owns the port, answers the machine-facing API itself (a plain Node handler is
 * ~40x cheaper per request than Next's pipeline), and hands every other path to Next (`next`), which serves the
 * console pages. `routes`: the API it mounts (default `apiRoutes(services)`; tests swap one handler).
 */
export function createHttpServer(services: Services, opts: { next?: PageHandler; routes?: Route[] } = {}): Server {
  const routes = opts.routes ?? apiRoutes(services);
  const pages = opts.next;
  const limits = services.config.http;
  const observe = createRequestObserver(services);

  const handle = (req: IncomingMessage, res: TetherResponse, entry: RequestEntry) => {
    if (answerNonPathTarget(req, res)) return;
    const path = pathOf(req.url);
    const route = routes.find((r) => under(path, r.prefix));
    Object.assign(entry, routeLabel(path, route?.prefix));
    let work: Promise<void>;
    try {
      if (route) work = route.handler(req, res, services);
      // /api/* belongs to this server: an unknown API path is a JSON 404, not a Next HTML page.
      else if (under(path, '/api') || !pages) work = Promise.resolve(sendJson(res, 404, { error: 'not found' }));
      else {
        markPageRequest(req);
        work = pages(req, res);
      }
    } catch (err) {
      work = Promise.reject(err); // a handler that throws before returning its promise
    }
    work.catch((err: unknown) => sendError(res, err, services));
  };

  const server = createServer<typeof IncomingMessage, typeof TetherResponse>(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: CHECK_INTERVAL_MS,
      // Every response, API or page, says nosniff and its request id, and is held while its request body still
      // arrives (http/response.ts).
      ServerResponse: TetherResponse,
    },
    (req, res) => {
      // A request id, one log line and the request metrics for every request (http/observe.ts).
      handle(req, res, observe(req, res));
    },
  );
  // Idle keep-alive connections: by default a little longer than common proxies' idle timeout (60 s), so the proxy,
  // not this server, closes an idle connection and never sends a request down one that is closing.
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  answerHalfClosedClients(server);
  limitConnections(server, limits);
  return server;
}
