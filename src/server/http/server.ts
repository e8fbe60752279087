// Helpers for the process's one HTTP server (composed in ../app.ts): what a request target means, connection caps,
// half-closed clients. Nothing here knows which APIs are mounted.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpLimits } from '../config';
import { sendJson } from './body';
import type { ApiHandler } from './types';

/** Next's request handler (`app.getRequestHandler()`), or absent when a test runs the API alone. */
export type PageHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Route {
  /** Matches the path itself and everything below it (`/api/v1` matches `/api/v1/tasks/1`). */
  prefix: string;
  handler: ApiHandler;
}

export function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const q = raw.indexOf('?');
  return q === -1 ? raw : raw.slice(0, q);
}

const SLASH = 0x2f; // '/'

export function under(path: string, prefix: string): boolean {
  return path === prefix || (path.startsWith(prefix) && path.charCodeAt(prefix.length) === SLASH);
}

/** What the server as a whole answers to (`OPTIONS *`, RFC 9110 §9.3.7). */
const SERVER_METHODS = 'GET, HEAD, POST, PATCH, DELETE, OPTIONS';

/**
 * RFC 9112 §3.2: a request target that is not a path. Next could not parse `OPTIONS *` (a 500 and a stack
 * in the log for anyone who asks) and answered an absolute-form target with a 308 to whatever host it named. Here:
 * `OPTIONS *` gets the server's methods; an absolute-form target naming this host (servers must accept that form)
 * continues as its path; one naming another host is 421 (this server does not answer for it); anything else is 400.
 * Returns true when the request has been answered.
 */
export function answerNonPathTarget(req: IncomingMessage, res: ServerResponse): boolean {
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
 * Slow clients and connection floods: Node's defaults let a request take 300 s to arrive and checked only
 * every 30 s, so 300 slowloris connections were never closed. Timeouts and caps come from config.ts (README); an
 * expired request gets Node's 408 and the connection closes within the timeout plus one check interval.
 */
export const CHECK_INTERVAL_MS = 1_000;

export function limitConnections(server: Server, limits: HttpLimits): void {
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
export function answerHalfClosedClients(server: Server): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}
