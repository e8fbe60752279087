// The error answers of the REST edge as schemas, straight from the one error table
// (src/server/domain/errors/domain-error.ts): each code's exact body, `{"error": …}` plus `code` where SPEC §7 says so.
import { z } from 'zod';
import { DomainError, ERRORS, type ErrorCode } from '../domain/errors/domain-error';

/** Every route that needs a caller may answer these: the router's own steps (src/server/http) and the database. */
export const EVERY_ROUTE_ERRORS: readonly ErrorCode[] = [
  'invalid_payload', // a query string whose %XX escapes are not UTF-8; a query parameter given twice
  'unauthenticated',
  'rate_limited',
  'internal',
  'database_unavailable',
];

/** The public route (the document itself) passes none of the caller's steps. */
export const PUBLIC_ROUTE_ERRORS: readonly ErrorCode[] = ['invalid_payload', 'internal'];

/** A mutation authenticated by the console's cookie must prove it is not cross-site (SPEC §11). */
export const MUTATION_ERRORS: readonly ErrorCode[] = ['csrf_failed'];

/** Routes that read a body: it is limited (TETHER_MAX_BODY_BYTES) and must be what the route reads. */
export const BODY_ERRORS: readonly ErrorCode[] = ['invalid_payload', 'payload_too_large'];

/**
 * Codes whose message may be followed by `: <detail>` (which field, which step, which URL). Every other code's body is
 * exactly the table's message. A code that gains a detail without being listed here fails every REST test that meets
 * it (tests/support/openapi-check.ts), so this list cannot silently go stale.
 */
const DETAILED: ReadonlySet<ErrorCode> = new Set([
  'invalid_payload',
  'validation_failed',
  'conflict',
  'branch_exists',
  'contribution_already_associated',
  'creation_step_failed',
  'identity_not_ready',
]);

/** What a caller should do about some errors: shown with the error in the document. */
const HINTS: Partial<Record<ErrorCode, string>> = {
  invalid_payload:
    'The request could not be read: not JSON, not UTF-8, a field of the wrong type (a non-string `external_id` included), a query parameter given twice; or a text cannot be stored as sent (`<field> must be well-formed Unicode`: a lone surrogate; `<field> must not contain NUL (U+0000) characters`).',
  validation_failed:
    'Says which field and why: `invalid request: <field>: <why>`; too long is `<field>: must be <N> characters or fewer`.',
  unauthenticated: 'No valid credential: send `Authorization: Bearer <token>`.',
  csrf_failed: 'A cookie-authenticated mutation without its `x-csrf-token`, or from another site.',
  rate_limited: 'Over the per-token rate: wait `Retry-After` seconds.',
  task_not_created:
    'The workspace is not accessible to you. Nothing else is said: not whether the identity exists or is settled (SPEC §4.1 step 3).',
  task_not_found: 'Nothing there, or nothing you may see: the two are the same answer (SPEC §11).',
  not_found: 'Nothing there, or nothing you may see: the two are the same answer (SPEC §11).',
  creation_completing:
    "The holder's creation is completing. Nothing changed and nothing was stored: retry shortly with the same Idempotency-Key.",
  creation_aborting:
    "The holder's creation is being undone. Nothing changed and nothing was stored: retry shortly with the same Idempotency-Key; once the abort ends the identity is free.",
  identity_contended:
    'The create lost the race for its identity four times in a row to creates that were undone before it could read them back (it retried by itself three times; nothing was created). Retry after `Retry-After` seconds.',
  idempotency_key_conflict:
    'This Idempotency-Key was used for a different release. Generate a new key for a new request.',
  wip_limit_exceeded: 'The target workflow step is at its WIP limit (and no task holds the identity).',
  identity_not_ready:
    'The identity schema has not been attested yet: external-identity reads and writes wait for it (SPEC §12). Creates without an identity keep working.',
  database_unavailable:
    'The database cannot be reached or refuses writes (connection lost, failover, a read-only node, disk full), or its tables are missing. Whatever was in flight has an unknown outcome and is finished by recovery: retry after `Retry-After` seconds — a create with the same `external_id` converges on the one task, a release with the same `Idempotency-Key` replays (SPEC §4.4).',
  internal: 'A server fault. The body says nothing more; the server logs it.',
};

/** `task_not_found` → `TaskNotFoundError`: the error's name in the document's components. */
export function errorComponentName(code: ErrorCode): string {
  return `${code.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase())}Error`;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The exact body of one error code, as a schema. */
export function errorBodySchema(code: ErrorCode): z.ZodType {
  const { error, code: bodyCode } = new DomainError(code).body();
  const message = DETAILED.has(code)
    ? z.string().regex(new RegExp(`^${escapeRegExp(error)}(: [\\s\\S]+)?$`))
    : z.literal(error);
  const shape = bodyCode === undefined ? { error: message } : { error: message, code: z.literal(bodyCode) };
  const hint = HINTS[code];
  return z.strictObject(shape).meta({
    title: code,
    description: `HTTP ${ERRORS[code].http}: ${error}${DETAILED.has(code) ? ' (optionally followed by `: <detail>`)' : ''}.${hint ? ` ${hint}` : ''}`,
  });
}
