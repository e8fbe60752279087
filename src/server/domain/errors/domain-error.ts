// STYLE habit 4: one application error type and one table. Every surface (REST, tRPC, MCP, console)
// maps a code through this table, so they all say the same words with the matching status. A code with
// `retryAfter` tells the caller when to come back (`Retry-After`, in seconds) on every surface.
import { dbErrorInfo } from '../../db/errors';

export const ERRORS = {
  invalid_payload: { http: 400, trpc: 'BAD_REQUEST', message: 'invalid payload' },
  validation_failed: { http: 400, trpc: 'BAD_REQUEST', message: 'invalid request' },
  invalid_external_id_control: {
    http: 400,
    trpc: 'BAD_REQUEST',
    message: 'invalid external_id: control characters are not allowed',
  },
  invalid_external_id_length: {
    http: 400,
    trpc: 'BAD_REQUEST',
    message: 'invalid external_id: must be 255 UTF-8 bytes or fewer',
  },
  external_id_required: { http: 400, trpc: 'BAD_REQUEST', message: 'invalid external_id: external_id is required' },
  workspace_required: { http: 400, trpc: 'BAD_REQUEST', message: 'workspace_id is required' },
  title_required: { http: 400, trpc: 'BAD_REQUEST', message: 'title is required' },
  idempotency_key_required: { http: 400, trpc: 'BAD_REQUEST', message: 'Idempotency-Key header is required (a UUID)' },
  idempotency_key_invalid: { http: 400, trpc: 'BAD_REQUEST', message: 'Idempotency-Key must be a UUID' },
  unauthenticated: { http: 401, trpc: 'UNAUTHORIZED', message: 'authentication required' },
  forbidden: { http: 403, trpc: 'FORBIDDEN', message: 'not allowed' },
  csrf_failed: { http: 403, trpc: 'FORBIDDEN', message: 'cross-site request refused' },
  task_not_created: { http: 404, trpc: 'NOT_FOUND', message: 'task not created' },
  task_not_found: { http: 404, trpc: 'NOT_FOUND', message: 'task not found' },
  not_found: { http: 404, trpc: 'NOT_FOUND', message: 'not found' },
  wip_limit_exceeded: { http: 409, trpc: 'CONFLICT', message: 'workflow step WIP limit exceeded' },
  creation_completing: { http: 409, trpc: 'CONFLICT', message: 'creation is completing; retry shortly' },
  creation_aborting: { http: 409, trpc: 'CONFLICT', message: 'creation is aborting; retry shortly' },
  idempotency_key_conflict: { http: 409, trpc: 'CONFLICT', message: 'idempotency key reused with a different request' },
  conflict: { http: 409, trpc: 'CONFLICT', message: 'conflict' },
  // Creation steps (SPEC §4.4, §5): the error a caller gets when a step fails and the create is aborted.
  attachment_unavailable: { http: 400, trpc: 'BAD_REQUEST', message: 'attachment not found or already claimed' },
  contribution_already_associated: {
    http: 409,
    trpc: 'CONFLICT',
    message: 'remote contribution is already associated with another task',
  },
  branch_exists: { http: 409, trpc: 'CONFLICT', message: 'branch already exists at a different commit' },
  creation_step_failed: {
    http: 500,
    trpc: 'INTERNAL_SERVER_ERROR',
    message: 'a creation step failed; the create was aborted',
  },
  payload_too_large: { http: 413, trpc: 'PAYLOAD_TOO_LARGE', message: 'request body too large' },
  // The limiter says how long to wait; 1 s is only the fallback.
  rate_limited: { http: 429, trpc: 'TOO_MANY_REQUESTS', message: 'too many requests', retryAfter: 1 },
  // SPEC §11: console sign-in, throttled per account and client address; the detail says how long to wait.
  sign_in_throttled: { http: 429, trpc: 'TOO_MANY_REQUESTS', message: 'too many sign-in attempts' },
  internal: { http: 500, trpc: 'INTERNAL_SERVER_ERROR', message: 'internal error' },
  identity_not_ready: {
    http: 503,
    trpc: 'SERVICE_UNAVAILABLE',
    message: 'external identity is unavailable: schema attestation has not passed',
  },
  // SPEC §4.4: the database cannot be reached or refuses writes; what was in flight is left to recovery.
  database_unavailable: { http: 503, trpc: 'SERVICE_UNAVAILABLE', message: 'database unavailable', retryAfter: 1 },
  // SPEC §4.1 step 8: a create kept losing the identity race to creates that vanished before its re-read.
  identity_contended: {
    http: 503,
    trpc: 'SERVICE_UNAVAILABLE',
    message: 'external identity is contended; retry shortly',
    retryAfter: 1,
  },
} as const satisfies Record<string, { http: number; trpc: string; message: string; retryAfter?: number }>;

export type ErrorCode = keyof typeof ERRORS;

/** Codes whose body carries `code` as well as `error` (SPEC §7). */
const CODE_IN_BODY: ReadonlySet<ErrorCode> = new Set([
  'creation_completing',
  'creation_aborting',
  'idempotency_key_conflict',
]);

export class DomainError extends Error {
  readonly code: ErrorCode;
  /** Extra words appended for the caller (e.g. which field was wrong). Never internal detail. */
  readonly detail?: string;
  /** Response headers the surface adds (e.g. `retry-after` on 429). */
  readonly headers?: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, detail?: string, headers?: Record<string, string>) {
    super(detail ? `${ERRORS[code].message}: ${detail}` : ERRORS[code].message);
    this.name = 'DomainError';
    this.code = code;
    this.detail = detail;
    const retryAfter = retryAfterOf(code);
    this.headers = retryAfter === undefined ? headers : { 'retry-after': String(retryAfter), ...headers };
  }

  get http(): number {
    return ERRORS[this.code].http;
  }

  /** The JSON body every surface sends: `{"error": …}` plus `code` where SPEC §7 asks for it. */
  body(): { error: string; code?: string } {
    return CODE_IN_BODY.has(this.code) ? { error: this.message, code: this.code } : { error: this.message };
  }
}

/** Seconds a caller answered with `code` should wait before retrying (`Retry-After`), if the code says so. */
export function retryAfterOf(code: ErrorCode): number | undefined {
  const entry: { message: string; retryAfter?: number } = ERRORS[code];
  return entry.retryAfter;
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

/**
 * Any error as the DomainError every surface reports: a DomainError as it is, an unreachable database as 503, a
 * text the database cannot hold (U+0000) as the caller's 400, anything else as `internal` (a 500 whose body says
 * nothing internal; the surface logs the original).
 */
export function toDomainError(err: unknown): DomainError {
  if (isDomainError(err)) return err;
  const info = dbErrorInfo(err);
  // SPEC §4.4: the database cannot be reached or refuses writes (db/errors.ts says which errors mean that). A dropped
  // database or table is an outage like any other; readiness hears of it from the driver (Db.onSchemaMissing).
  if (info?.unavailable) return new DomainError('database_unavailable');
  // A NUL reached the database (PostgreSQL refuses it, SQLSTATE 22021): it is the caller's input.
  if (info?.invalidText) return new DomainError('invalid_payload', 'text must not contain NUL (U+0000) characters');
  return new DomainError('internal');
}
