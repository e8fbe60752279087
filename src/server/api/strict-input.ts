// How both tRPC paths (native-call.ts and the adapter in http.ts) read a call's raw input: the body up to the size
// limit, and bytes that are not UTF-8 refused with REST's `invalid payload` (SPEC §2.1 keeps ids byte for byte, §4.1
// step 1). Decoding like Fetch's `Request.json()` would replace bad bytes with U+FFFD, so `"u8-\xFF"` and `"u8-\xFE"`
// would become the same external id — and the same task — while REST and MCP refuse both.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TRPCError } from '@trpc/server';
import { DomainError, isDomainError } from '../domain/errors/domain-error';
import { refuseMalformedQuery } from '../http/body';

/** Fatal, and stateless (no `stream` option), so one decoder serves every request. Drops a BOM like Fetch. */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `invalid payload` as a tRPC error: the formatter (trpc.ts) takes its words and domain code from the cause. */
function invalidPayload(cause: DomainError = new DomainError('invalid_payload')): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message: cause.message, cause });
}

/** The body's text, refusing bytes that are not UTF-8. */
export function decodeBody(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw invalidPayload();
  }
}

/** Refuses a query string whose escapes are not UTF-8 (`?input=%FF`, `?batch=1&input=…`), as REST does. */
export function refuseMalformedTrpcQuery(url: string | undefined): void {
  try {
    refuseMalformedQuery(url);
  } catch (err) {
    if (isDomainError(err)) throw invalidPayload(err);
    throw err;
  }
}

/** Media types are case-insensitive and may carry parameters (`application/json; charset=utf-8`). */
export function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * The body up to `limit` bytes. Over the limit it fails like the adapter's body stream (PAYLOAD_TOO_LARGE, no
 * message of its own) and stops listening; Node discards the rest so the connection stays usable.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err?: unknown) => {
      req.off('data', onData).off('end', onEnd).off('error', done).off('aborted', onAborted);
      if (err === undefined) resolve(Buffer.concat(chunks, size));
      else reject(err);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(new TRPCError({ code: 'PAYLOAD_TOO_LARGE' }));
      else chunks.push(chunk);
    };
    const onEnd = () => done();
    const onAborted = () => done(new TRPCError({ code: 'CLIENT_CLOSED_REQUEST' }));
    req.on('data', onData).on('end', onEnd).on('error', done).on('aborted', onAborted);
  });
}

/**
 * The adapter's `middleware`: it checks the query string and hands the adapter a JSON body already read and
 * decoded (tRPC uses a pre-read string `req.body` as it is). A refusal becomes the request's error, which tRPC
 * reports for every call of a batch, after the context is built. Other content types stay tRPC's (it answers 415).
 */
export function strictInputMiddleware(limit: number) {
  return (req: IncomingMessage & { body?: unknown }, _res: ServerResponse, next: (err?: unknown) => void): void => {
    const read = async () => {
      refuseMalformedTrpcQuery(req.url);
      if (req.method === 'GET' || req.method === 'HEAD' || !isJson(req.headers['content-type'])) return;
      req.body = decodeBody(await readBody(req, limit));
    };
    read().then(() => next(), next);
  };
}
