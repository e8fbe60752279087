// What the server knows about the request it is answering: its id, route, surface, who is acting and the error code it
// ends with. The HTTP server opens the entry (http/observe.ts) and binds it to the request (a response finds it through
// `res.req`); the code that adds to it — the REST router, authentication, the error mappers of each surface — holds the
// request or its response, or an entry handed down by its surface (tRPC's context, the MCP server of the request).
// Explicit, not an AsyncLocalStorage: on Node 20 a storage turns on promise hooks for the whole process, which cost
// every promise of every request (~8 µs of server CPU per REST Found, docs/history/2026-12-benchmarks-history.md). One
// RequestScope per Services, never module state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCode } from '../domain/errors/domain-error';

/** Where a request came in: the API surfaces, the console pages, and the operational endpoints. */
export type Surface = 'rest' | 'trpc' | 'mcp' | 'health' | 'metrics' | 'page' | 'other';

export interface RequestEntry {
  id: string;
  method: string;
  /** A low-cardinality name for what was asked: the route pattern, never the raw path or query. */
  route: string;
  surface: Surface;
  /** process.hrtime.bigint() when the request arrived: its log line and latency histogram measure from here. */
  startedAt: bigint;
  actorId?: string;
  /** The domain code of the error the request answered with (its first, when a batch had several). */
  errorCode?: ErrorCode;
  /** The error behind an `internal` answer, for the log line (never sent to the client). */
  internalError?: unknown;
}

export class RequestScope {
  /**
   * The entry rides on the request object under this scope's own key: a property store and load per request, where a
   * WeakMap added an entry the garbage collector has to process as an ephemeron.
   */
  private readonly key = Symbol('tether.request-entry');

  /** Binds `entry` to the request, for as long as it lives. */
  open(req: IncomingMessage, entry: RequestEntry): void {
    (req as unknown as Record<symbol, RequestEntry>)[this.key] = entry;
  }

  /** The entry of this request (or of the request a response answers); undefined outside the HTTP server. */
  of(message: IncomingMessage | ServerResponse): RequestEntry | undefined {
    const req = 'req' in message ? message.req : message;
    return (req as unknown as Record<symbol, RequestEntry | undefined>)[this.key];
  }
}

/** The request answers with this error (every surface's mapper calls this once it has the domain code). */
export function noteError(entry: RequestEntry | undefined, code: ErrorCode, cause?: unknown): void {
  if (!entry) return;
  entry.errorCode ??= code;
  if (code === 'internal' && cause !== undefined) entry.internalError ??= cause;
}
