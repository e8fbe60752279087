// The process's one HTTP server. It owns the port, answers the machine-facing API itself (a plain Node
// handler is ~40x cheaper per request than Next's pipeline), and hands every other path to Next, which
// serves the console pages. Domain code is loaded once, here, for the whole process.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config';
import { createTrpcHandler } from '../api/http';
import { handleMcp } from '../mcp/handler';
import { handleRest } from '../rest/router';
import type { Services } from '../services';
import { sendError, sendJson } from './body';
import { TetherResponse } from './response';
import { handleHealth } from './health';
import { handleMetrics } from './metrics';
import { createRequestObserver } from './observe';
import { markPageRequest } from './page-origin';
import { routeLabel } from './route-label';
import type { RequestEntry } from '../observability/request-scope';
import { handleFailpoints } from './test-hooks';
import { handleConsoleExport } from './console-export';
import type { ApiHandler } from './types';

/** Next's request handler (`app.getRequestHandler()`), or absent when a test runs the API alone. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Route {
  /** Matches the path itself and everything below it (`/api/v1` matches `/api/v1/tasks/1`). */
  prefix: string;
  handler: ApiHandler;
}

export function apiRoutes(services: Services): Route[] {
  const routes: Route[] = [
    { prefix: '/api/health', handler: handleHealth },
    { prefix: '/api/metrics', handler: handleMetrics }, // issue 17: Prometheus, admins only
    { prefix: '/api/trpc', handler: createTrpcHandler(services) },
    { prefix: '/api/v1', handler: handleRest },
    { prefix: '/api/mcp', handler: handleMcp }, // SPEC §10: MCP (Streamable HTTP) mounts here.
    { prefix: '/api/console/export', handler: handleConsoleExport }, // SPEC §13: a console list as CSV or JSON
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

/** What the server as a whole answers to (`OPTIONS *`, RFC 9110 §9.3.7). */
const SERVER_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

/**
 * RFC 9112 §3.2: a request target that is not a path. Issue 18: Next could not parse `OPTIONS *` (a 500 and a stack
 * in the log for anyone who asks) and answered an absolute-form target with a 308 to whatever host it named. Here:
 * `OPTIONS *` gets the server's methods; an absolute-form target naming this host (servers must accept that form)
 * continues as its path; one naming another host is 421 (this server does not answer for it); anything else is 400.
 * Returns true when the request has been answered.
 */
function answerNonPathTarget(req: IncomingMessage, res: ServerResponse): boolean {
  const target = req.url ?? '';
  if (target.startsWith('/')) return false;
  if (target === '*') {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { allow: SERVER_METHODS, 'cache-control': 'no-store' });
      res.end();
    } else sendJson(res, 400, { error: 'invalid request target: * is only for OPTIONS' });
    return true;
  }
  const absolute = /^https?:\/\/([^/?#@]+)([/?][^#]*)?$/i.exec(target);
  if (!absolute) {
    sendJson(res, 400, { error: 'invalid request target' });
    return true;
  }
  if (absolute[1]!.toLowerCase() !== req.headers.host?.toLowerCase()) {
    sendJson(res, 421, { error: 'misdirected request: this server does not answer for that host' });
    return true;
  }
  const rest = absolute[2] ?? '/';
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
  return false;
}

/**
 * Issue 18: slow clients and connection floods. Node's defaults let a request take 300 s to arrive and checked only
 * every 30 s, so 300 slowloris connections were never closed. Timeouts and caps come from config.ts (README); an
 * expired request gets Node's 408 and the connection closes within the timeout plus one check interval.
 */
const CHECK_INTERVAL_MS = 1_000;

function limitConnections(server: Server, limits: HttpLimits): void {
  server.maxConnections = limits.maxConnections; // Node closes connections over it at once (0: no cap)
  if (limits.maxConnectionsPerClient === 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress ?? '';
    const n = (open.get(client) ?? 0) + 1;
    if (n > limits.maxConnectionsPerClient) {
      socket.destroy(); // as Node does over maxConnections: no bytes spent on a client already holding its share
      return;
    }
    open.set(client, n);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
}

/**
 * A client may send its request and then half-close (FIN: "nothing more from me") while it waits for the answer, as
 * `nc -N` or a `shutdown(SHUT_WR)` does. Node's default ends the server's side too when the FIN arrives, so the
 * handler went on — a create ran and committed — with nobody able to receive its answer; whether the answer got out
 * depended on which came first. With `httpAllowHalfOpen` Node keeps the writing side open and closes the connection
 * once the last response is sent (a half-closed TCP connection still carries data the other way: RFC 9293 §3.6.1).
 * The property is Node's own (lib/_http_server.js reads it on each FIN), not in its typings. An event stream, which
 * never finishes, ends on the FIN instead (response.ts).
 */
function answerHalfClosedClients(server: Server): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** `routes`: the API this server mounts (default `apiRoutes(services)`; tests swap one handler). */
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
      // arrives (./response.ts).
      ServerResponse: TetherResponse,
    },
    (req, res) => {
      // Issue 17: a request id, one log line and the request metrics for every request (http/observe.ts).
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
