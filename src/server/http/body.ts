// Reading and writing JSON on the custom server's own routes (the machine-facing API).
// Every API module reads its body through readJsonBody (limit: config.http.maxBodyBytes, TETHER_MAX_BODY_BYTES)
// and answers through sendJson/sendError, so every surface has the same size limit, the same "invalid payload" and
// the same error bodies (STYLE habit 4).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DomainError, toDomainError } from '../domain/errors/domain-error';
import { noteError } from '../observability/request-scope';
import type { Services } from '../services';

// Fatal decoding: a body that is not valid UTF-8 is refused rather than "repaired" with U+FFFD, which
// would silently change an external_id (SPEC §2.1: kept byte-for-byte).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The client closed the connection before its body arrived: nobody is left to answer. */
export class ClientClosedError extends Error {
  constructor() {
    super('client closed the request');
    this.name = 'ClientClosedError';
  }
}

/**
 * Hands each chunk of the body to `onChunk` and resolves at its end, refusing more than `limitBytes` (413) without
 * buffering the excess. On a refusal the rest of the body stays unread and the connection stays up, so the 413 can
 * still reach the client (server.ts).
 */
export function consumeBody(req: IncomingMessage, limitBytes: number, onChunk: (chunk: Buffer) => void): Promise<void> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) return Promise.reject(new DomainError('payload_too_large'));
  return new Promise((resolve, reject) => new BodyReader(req, limitBytes, onChunk, resolve, reject).listen());
}

/**
 * One body being read. Not `for await`: leaving that loop early destroys the request and with it the socket, before the
 * 413 is written (a client sending a chunked body would see EPIPE instead of the answer). Its listeners are its own
 * methods, bound once per request.
 */
class BodyReader {
  private size = 0;
  private readonly onData = this.data.bind(this);
  private readonly onEnd = this.finish.bind(this, undefined);
  private readonly onGone = this.gone.bind(this);

  constructor(
    private readonly req: IncomingMessage,
    private readonly limitBytes: number,
    private readonly onChunk: (chunk: Buffer) => void,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  listen(): void {
    this.req.on('data', this.onData).on('end', this.onEnd).on('error', this.onGone).on('close', this.onGone);
  }

  private data(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limitBytes) this.finish(new DomainError('payload_too_large'));
    else this.onChunk(chunk);
  }

  private gone(): void {
    this.finish(new ClientClosedError());
  }

  private finish(err: unknown): void {
    this.req.off('data', this.onData).off('end', this.onEnd).off('error', this.onGone).off('close', this.onGone);
    if (err === undefined) this.resolve();
    else this.reject(err);
  }
}

/** The raw body, up to `limitBytes` (413 beyond). */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await consumeBody(req, limitBytes, (chunk) => chunks.push(chunk));
  return Buffer.concat(chunks);
}

/**
 * The parsed JSON body. SPEC §4.1 step 1: invalid JSON (or an empty body, or bytes that are not UTF-8)
 * is 400 `invalid payload`; more than the limit is 413.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const raw = await readBody(req, limitBytes);
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw new DomainError('invalid_payload');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  const head: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
  };
  res.writeHead(status, headers ? Object.assign(head, headers) : head);
  res.end(text);
}

/** An escape of a byte from 0x80 up: the only kind that can be part of an ill-formed UTF-8 sequence. */
const HIGH_ESCAPE = /%[89A-Fa-f]/;

/**
 * SPEC §2.1 keeps ids byte for byte, so a query string is held to the same rule as a body: percent-encoded bytes that
 * are not UTF-8 (`%FF`, the overlong `%C0%80`, the surrogate `%ED%A0%80`) are 400 `invalid payload`, not "repaired" to
 * U+FFFD by URLSearchParams (else `?external_id=a-%FE` would find the task created as `a-\uFFFD`).
 */
export function refuseMalformedQuery(url: string | undefined): void {
  const q = url?.indexOf('?') ?? -1;
  if (q === -1) return;
  // Only escapes of bytes 0x80 and above can be ill-formed: a query without one (JSON `?input=` and most ids) is fine.
  const query = url!.slice(q + 1);
  if (!HIGH_ESCAPE.test(query)) return;
  // A run of escapes holds whole characters: no ASCII byte can continue a multi-byte sequence.
  for (const run of query.match(/(?:%[0-9A-Fa-f]{2})+/g) ?? []) {
    try {
      decodeURIComponent(run); // throws URIError on bytes that are not well-formed UTF-8
    } catch {
      throw new DomainError('invalid_payload', 'the query string is not valid UTF-8');
    }
  }
}

/**
 * Maps any error to the response every surface agrees on: a DomainError through its table, an unreachable
 * database to 503, anything else to a 500 whose body says nothing internal (STYLE habit 4) — the request's log line
 * carries the error itself (http/observe.ts).
 */
export function sendError(res: ServerResponse, err: unknown, services: Pick<Services, 'requests'>): void {
  if (err instanceof ClientClosedError) {
    res.destroy(); // nobody to answer, nothing to log
    return;
  }
  const domain = toDomainError(err);
  // The request's log line carries the code (and, for a 500, the error itself: http/observe.ts).
  noteError(services.requests.of(res), domain.code, err);
  if (res.headersSent) {
    // Too late for a status: cut the response so the client sees a failure, not a truncated success.
    res.destroy();
    return;
  }
  // After a 413 the rest of the oversized body is unread: the connection closes once the server's answer has been
  // sent and the client has stopped sending (http/response.ts lingers before the close, so the client can read it).
  const headers: Record<string, string> =
    domain.code === 'payload_too_large' ? { connection: 'close' } : { ...domain.headers };
  sendJson(res, domain.http, domain.body(), headers);
}
