// Inner and outer context (STYLE habit 2). Tests call createContextInner with a real database and an actor;
// the HTTP edge's createContext only reads the bearer token or session cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Actor } from '../domain/access';
import { cookie } from '../auth/headers';
import { SESSION_COOKIE, secureCookies, type Session } from '../auth/session';
import { authenticateRequest } from '../http/authenticate-request';
import type { RequestEntry } from '../observability/request-scope';
import type { Services } from '../services';

export interface Context {
  services: Services;
  actor: Actor | null;
  /** For the audit record of releases (`trpc`, or `console` when a signed-in person acts). */
  source: string;
  /** The console session when the caller signed in with the cookie (its CSRF token and expiry). */
  session?: Session;
  /** Present over HTTP: the session router reads the presented cookie and sets or clears it. */
  http?: ContextHttp;
  /** Present over HTTP: the request's entry, which its log line and error counter read. */
  request?: RequestEntry;
}

export interface ContextHttp {
  /** The `tether_session` cookie value the request carried, if any. */
  sessionCookie: string | undefined;
  /** Whether cookies get the Secure flag (request over https, or TETHER_SECURE_COOKIES=1). */
  secure: boolean;
  /** Adds a `Set-Cookie` header to the response. */
  setCookie(value: string): void;
  /** Sets a response header (an error's `Retry-After`: tRPC's error shape carries no headers). */
  setHeader(name: string, value: string): void;
  /** The connection's address, as the per-client connection cap sees it (no proxy header is trusted). */
  clientAddress: string | null;
}

export function createContextInner(opts: {
  services: Services;
  actor: Actor | null;
  source?: string;
  session?: Session;
  http?: ContextHttp;
  request?: RequestEntry;
}): Context {
  return new RequestContext(opts.services, opts.actor, opts.source ?? 'trpc', opts.session, opts.http, opts.request);
}

/**
 * A context: plain own keys (spreads and `toEqual` see an object literal's), made by a constructor because an object
 * literal is an allocation site. V8 may decide a site makes long-lived objects (allocation-site pretenuring) and then
 * allocates every later object from it in the old generation; it decides so for a context literal under load, and as a
 * context holds its request and response (`http`), every call's objects then survive each young-generation collection
 * until a full one (docs/BENCHMARKS.md, SQLite tRPC Found). Objects made by `new` have no allocation site: they start
 * young.
 */
class RequestContext implements Context {
  constructor(
    readonly services: Services,
    readonly actor: Actor | null,
    readonly source: string,
    readonly session: Session | undefined,
    readonly http: ContextHttp | undefined,
    readonly request: RequestEntry | undefined,
  ) {}
}

export async function createContext(services: Services, req: IncomingMessage, res?: ServerResponse): Promise<Context> {
  const auth = await authenticateRequest(services, req);
  return createContextInner({
    services,
    actor: auth?.actor ?? null,
    source: auth?.via === 'cookie' ? 'console' : 'trpc',
    session: auth?.session,
    http: res && new NodeContextHttp(req, res, services.config.http.secureCookies),
    request: services.requests.of(req),
  });
}

/**
 * ContextHttp over Node's request and response. Only the session procedures read the cookie and the Secure flag, so
 * they are worked out when read (parsing the Cookie header was a measurable part of every tRPC call); the client's
 * address is read at once, while the connection is certainly still there.
 */
class NodeContextHttp implements ContextHttp {
  readonly clientAddress: string | null;
  private cookieRead: { value: string | undefined } | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly forceSecure: boolean,
  ) {
    this.clientAddress = req.socket.remoteAddress ?? null;
  }

  get sessionCookie(): string | undefined {
    this.cookieRead ??= { value: cookie(this.req.headers, SESSION_COOKIE) };
    return this.cookieRead.value;
  }

  get secure(): boolean {
    return secureCookies((this.req.socket as { encrypted?: boolean }).encrypted === true, this.forceSecure);
  }

  setCookie(value: string): void {
    this.res.appendHeader('set-cookie', value);
  }

  setHeader(name: string, value: string): void {
    if (!this.res.headersSent) this.res.setHeader(name, value);
  }
}
