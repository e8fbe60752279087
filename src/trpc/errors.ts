// Reading tRPC errors in the console: the server's errorFormatter (src/server/api/trpc.ts) puts the domain
// code in `data.domainCode` (a union of the known codes, so a misspelled code does not compile) and the table's
// words in `message`.
import type { ErrorCode } from '../server/domain/errors/domain-error';

export interface ApiErrorData {
  code?: string;
  httpStatus?: number;
  domainCode?: ErrorCode;
  /** On a 429: how many seconds to wait before trying again. */
  retryAfterSeconds?: number;
}

function dataOf(err: unknown): ApiErrorData | undefined {
  return (err as { data?: ApiErrorData } | null)?.data ?? undefined;
}

export function domainCodeOf(err: unknown): ErrorCode | undefined {
  return dataOf(err)?.domainCode;
}

/** A 429's wait, in seconds, or undefined. */
export function retryAfterOf(err: unknown): number | undefined {
  return dataOf(err)?.retryAfterSeconds;
}

export function isUnauthorized(err: unknown): boolean {
  return dataOf(err)?.code === 'UNAUTHORIZED';
}

/** No answer from the server at all (connection refused, aborted, offline): the request may or may not have run. */
export function isNetworkError(err: unknown): boolean {
  return !!err && typeof err === 'object' && !dataOf(err);
}

/** The HTTP status the server answered with, when it answered. */
export function httpStatusOf(err: unknown): number | undefined {
  return dataOf(err)?.httpStatus;
}

/** What went wrong, in words: no answer at all, a server failure with its status, or the server's own message. */
export function messageOf(err: unknown): string {
  if (isNetworkError(err)) return 'The server did not answer (network error). Check the connection and try again.';
  const message = err instanceof Error ? err.message : String(err);
  const status = httpStatusOf(err);
  return status !== undefined && status >= 500 ? `The server answered HTTP ${status}: ${message}.` : message;
}
