// Every request the server answers is observed once, so every answer has its log line and its metrics: a request id —
// the caller's `X-Request-Id` when it is a sane token, else a new one — echoed on the response; the route it matched (a
// pattern, never the raw path or query, which can carry external ids); and, when the response is done, one log line
// (id, method, route, status, duration, actor) and the latency histogram and error counter. Bodies, headers and query
// strings are never logged.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REQUEST_ID_HEADER, type TetherResponse } from './response';
import type { RequestEntry } from '../observability/request-scope';
import type { Services } from '../services';

/** What we accept from a caller as a request id: short, printable, no spaces (it goes into every log line). */
const SANE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdOf(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(given) ? given[0] : given;
  return value !== undefined && SANE_ID.test(value) ? value : randomUUID();
}

/**
 * The observer of one server: opens each request's entry, echoes its id, and records the answer when the response
 * closes — Node closes every response once, after it finished or when it was cut (the client left, or a late failure),
 * so one listener per request, shared by all of them, sees each answer exactly once.
 */
export function createRequestObserver(services: Services): (req: IncomingMessage, res: TetherResponse) => RequestEntry {
  function recordAnswer(this: ServerResponse): void {
    const entry = services.requests.of(this);
    if (!entry) return;
    const seconds = Number(process.hrtime.bigint() - entry.startedAt) / 1e9;
    // A response cut before it finished is logged as such.
    const status = this.writableFinished ? this.statusCode : 0;
    services.metrics.requestDuration.observe(
      { route: entry.route, method: entry.method, status: statusClass(status) },
      seconds,
    );
    if (entry.errorCode) services.metrics.errors.inc({ code: entry.errorCode, surface: entry.surface });
    const line = {
      req_id: entry.id,
      method: entry.method,
      route: entry.route,
      status,
      duration_ms: Math.round(seconds * 1e6) / 1e3,
      actor_id: entry.actorId,
      error_code: entry.errorCode,
      ...(entry.internalError ? { err: entry.internalError } : {}),
    };
    // A failed request's line carries the error itself: it goes through the redacting logger.
    if (status >= 500 || entry.internalError) services.log.error(line, 'request failed');
    else services.requestLog.info(line, 'request');
  }
  return (req, res) => {
    const entry: RequestEntry = {
      id: requestIdOf(req),
      method: req.method ?? 'GET',
      route: 'other',
      surface: 'other',
      startedAt: process.hrtime.bigint(),
    };
    services.requests.open(req, entry);
    res.requestId = entry.id; // echoed as X-Request-Id when the status line is written (./response.ts)
    res.on('close', recordAnswer);
    return entry;
  };
}

function statusClass(status: number): string {
  return status === 0 ? 'aborted' : `${Math.floor(status / 100)}xx`;
}
