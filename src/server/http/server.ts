// The process's one HTTP server. It owns the port, answers the machine-facing API itself (a plain Node
// handler is ~40x cheaper per request than Next's pipeline), and hands every other path to Next, which
// serves the console pages. Domain code is loaded once, here, for the whole process.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { handleTrpc } from '../api/http';
import { handleMcp } from '../mcp/handler';
import { handleRest } from '../rest/router';
import type { Services } from '../services';
import { sendError, sendJson } from './body';
import { handleHealth } from './health';
import { handleFailpoints } from './test-hooks';
import type { ApiHandler } from './types';

/** Next's request handler (`app.getRequestHandler()`), or absent when a test runs the API alone. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

interface Route {
  /** Matches the path itself and everything below it (`/api/v1` matches `/api/v1/tasks/1`). */
  prefix: string;
  handler: ApiHandler;
}

export function apiRoutes(services: Services): Route[] {
  const routes: Route[] = [
    { prefix: '/api/health', handler: handleHealth },
    { prefix: '/api/trpc', handler: handleTrpc },
    { prefix: '/api/v1', handler: handleRest },
    { prefix: '/api/mcp', handler: handleMcp }, // SPEC §10: MCP (Streamable HTTP) mounts here.
  ];
  // Test hooks exist only when enabled; otherwise the path falls through to the API 404 below.
  if (services.failpoints.enabled) routes.push({ prefix: '/api/_test/failpoints', handler: handleFailpoints });
  return routes;
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

function under(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === 47 /* '/' */);
}

export function createHttpServer(services: Services, opts: { next?: PageHandler } = {}): Server {
  const routes = apiRoutes(services);
  const pages = opts.next;

  const server = createServer((req, res) => {
    // Every response, API or page: browsers must not guess content types.
    res.setHeader('x-content-type-options', 'nosniff');
    const path = pathOf(req.url);
    const route = routes.find((r) => under(path, r.prefix));
    let work: Promise<void>;
    try {
      if (route) work = route.handler(req, res, services);
      // /api/* belongs to this server: an unknown API path is a JSON 404, not a Next HTML page.
      else if (under(path, '/api') || !pages) work = Promise.resolve(sendJson(res, 404, { error: 'not found' }));
      else work = pages(req, res);
    } catch (err) {
      work = Promise.reject(err); // a handler that throws before returning its promise
    }
    work.catch((err: unknown) => sendError(res, err));
  });
  // Keep idle keep-alive sockets a little longer than common proxies' idle timeout (60 s) to avoid races.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
