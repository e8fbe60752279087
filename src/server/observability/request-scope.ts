// What the server knows about the request it is answering (issue 17 items 9–10): its id, route, surface, who is
// acting and the error code it ends with. The HTTP server opens the scope (http/observe.ts); code deep inside a
// request — authentication, the error mappers of each surface, the create and release counters — adds to it through
// `services.requests` without threading it through every call. One AsyncLocalStorage per Services, never module state.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ErrorCode } from '../domain/errors/domain-error';

/** Where a request came in: the API surfaces, the console pages, and the operational endpoints. */
export type Surface = 'rest' | 'trpc' | 'mcp' | 'health' | 'metrics' | 'page' | 'other';

export interface RequestEntry {
  id: string;
  method: string;
  /** A low-cardinality name for what was asked: the route pattern, never the raw path or query. */
  route: string;
  surface: Surface;
  actorId?: string;
  /** The domain code of the error the request answered with (its first, when a batch had several). */
  errorCode?: ErrorCode;
  /** The error behind an `internal` answer, for the log line (never sent to the client). */
  internalError?: unknown;
}

export class RequestScope {
  private readonly storage = new AsyncLocalStorage<RequestEntry>();

  run<T>(entry: RequestEntry, fn: () => T): T {
    return this.storage.run(entry, fn);
  }

  current(): RequestEntry | undefined {
    return this.storage.getStore();
  }

  /** The request acts as `actorId` (authentication found who is calling). */
  noteActor(actorId: string): void {
    const entry = this.current();
    if (entry) entry.actorId = actorId;
  }

  /** The request answers with this error (every surface's mapper calls this once it has the domain code). */
  noteError(code: ErrorCode, cause?: unknown): void {
    const entry = this.current();
    if (!entry) return;
    entry.errorCode ??= code;
    if (code === 'internal' && cause !== undefined) entry.internalError ??= cause;
  }

  /** A more precise route than the prefix the server matched (the REST router knows the pattern it matched). */
  noteRoute(route: string): void {
    const entry = this.current();
    if (entry) entry.route = route;
  }
}
