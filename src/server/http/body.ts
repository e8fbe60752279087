// Reading and writing JSON on the custom server's own routes (the machine-facing API).
// Every API module reads its body through readJsonBody and answers through sendJson/sendError, so every
// surface has the same size limit, the same "invalid payload" and the same error bodies (STYLE habit 4).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dbErrorInfo } from '../db/dialect';
import { DomainError, isDomainError } from '../domain/errors/domain-error';

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The body size limit: `TETHER_MAX_BODY_BYTES`, default 1 MiB. Read per call so tests can change it. */
export function maxBodyBytes(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.TETHER_MAX_BODY_BYTES);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_MAX_BODY_BYTES;
}

// Fatal decoding: a body that is not valid UTF-8 is refused rather than "repaired" with U+FFFD, which
// would silently change an external_id (SPEC §2.1: kept byte-for-byte).
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The raw body, refusing more than `limitBytes` (413) without buffering the excess. */
export async function readBody(req: IncomingMessage, limitBytes = maxBodyBytes()): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) throw new DomainError('payload_too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) throw new DomainError('payload_too_large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * The parsed JSON body. SPEC §4.1 step 1: invalid JSON (or an empty body, or bytes that are not UTF-8)
 * is 400 `invalid payload`; more than the limit is 413.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes = maxBodyBytes()): Promise<unknown> {
  const raw = await readBody(req, limitBytes);
  try {
    return JSON.parse(utf8.decode(raw));
  } catch {
    throw new DomainError('invalid_payload');
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

/**
 * SPEC §2.1 keeps ids byte for byte, so a query string is held to the same rule as a body: percent-encoded bytes
 * that are not UTF-8 (`%FF`, the overlong `%C0%80`, the surrogate `%ED%A0%80`) are 400 `invalid payload`, not
 * "repaired" to U+FFFD by URLSearchParams (issue 18: `?external_id=a-%FE` found the task created as `a-\uFFFD`).
 */
export function refuseMalformedQuery(url: string | undefined): void {
  const q = url?.indexOf('?') ?? -1;
  if (q === -1) return;
  // A run of escapes holds whole characters: no ASCII byte can continue a multi-byte sequence.
  for (const run of url!.slice(q + 1).match(/(?:%[0-9A-Fa-f]{2})+/g) ?? []) {
    try {
      decodeURIComponent(run); // throws URIError on bytes that are not well-formed UTF-8
    } catch {
      throw new DomainError('invalid_payload', 'the query string is not valid UTF-8');
    }
  }
}

/**
 * Maps any error to the response every surface agrees on: a DomainError through its table, an unreachable
 * database to 503, anything else to a logged 500 whose body says nothing internal (STYLE habit 4).
 */
export function sendError(res: ServerResponse, err: unknown): void {
  const domain = toDomainError(err);
  if (domain.code === 'internal') console.error('[tether] unhandled error:', err);
  if (res.headersSent) {
    // Too late for a status: cut the response so the client sees a failure, not a truncated success.
    res.destroy();
    return;
  }
  // After a 413 the rest of the oversized body is unread: close the connection rather than drain it.
  const headers: Record<string, string> = domain.code === 'payload_too_large' ? { connection: 'close' } : { ...domain.headers };
  sendJson(res, domain.http, domain.body(), headers);
}

export function toDomainError(err: unknown): DomainError {
  if (isDomainError(err)) return err;
  const info = dbErrorInfo(err);
  if (info?.unavailable) return new DomainError('database_unavailable');
  // A NUL reached the database (issue 9 fuzzing found this as a 500 on PostgreSQL): it is the caller's input.
  if (info?.invalidText) return new DomainError('invalid_payload', 'text must not contain NUL (U+0000) characters');
  return new DomainError('internal');
}
