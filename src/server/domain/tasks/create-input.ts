// The create request: the envelope read before the lookup (SPEC §4.1 step 1), and the full field schema
// validated only after a lookup miss (step 6), so a drifted retry still gets its task back. The schemas themselves
// are shared with every surface (./schemas.ts); this file turns their failures into the error table's words.
import type { z } from 'zod';
import { DomainError } from '../errors/domain-error';
import { tooLongMessage, UNSTORABLE_TEXT } from '../text';
import {
  ZCreateEnvelope,
  ZCreateTaskFields,
  ZIdentityEnvelope,
  type TCreateTaskFields,
  type TIdentityEnvelope,
} from './schemas';

export { ZCreateTaskFields, type TCreateTaskFields } from './schemas';

export interface CreateEnvelope {
  workspaceId?: string;
  parentId?: string;
  /** A string, or absent (`null` and absent both mean "no identity"). Normalized after authorization (SPEC §2.1). */
  rawExternalId: string | null | undefined;
  body: Record<string, unknown>;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An envelope's type errors, all `invalid payload` (SPEC §4.1 step 1) and decided before authorization. A non-string
 * `external_id` is exactly `invalid payload` on every surface, so no surface says more about it than another; a wrong
 * id says which field it was.
 */
function envelopeError(error: z.ZodError): DomainError {
  const field = error.issues[0]?.path[0];
  if (field === undefined || field === 'external_id') return new DomainError('invalid_payload');
  return new DomainError('invalid_payload', `${String(field)} must be a string`);
}

/** SPEC §4.1 step 1. Anything but an object with string ids and a string (or absent) identity is `invalid payload`. */
export function parseEnvelope(body: unknown): CreateEnvelope {
  if (!isPlainObject(body)) throw new DomainError('invalid_payload');
  const r = ZCreateEnvelope.safeParse(body);
  if (!r.success) throw envelopeError(r.error);
  return {
    workspaceId: r.data.workspace_id ?? undefined,
    parentId: r.data.parent_id ?? undefined,
    rawExternalId: r.data.external_id,
    body,
  };
}

/**
 * Lookup and release (SPEC §7): the workspace, and an identity and key that are strings when present, read before
 * authorization — from tRPC's input, and from REST's path, query and header alike.
 */
export function parseIdentityEnvelope(raw: unknown): TIdentityEnvelope {
  if (!isPlainObject(raw)) throw new DomainError('invalid_payload');
  const r = ZIdentityEnvelope.safeParse(raw);
  if (!r.success) throw envelopeError(r.error);
  return r.data;
}

/**
 * zod issues → one clear client error (STYLE habit 5: only input validation is a client error), the same on every
 * surface: REST, tRPC and MCP all parse with the shared schemas and report through here.
 */
export function validationError(error: z.ZodError): DomainError {
  const first = error.issues[0];
  const where = first?.path.length ? first.path.join('.') : 'body';
  // SPEC §10: text the store cannot keep is refused as text, like bytes that are not UTF-8 (domain/text.ts).
  if (first?.code === 'custom' && first.params?.refusal === UNSTORABLE_TEXT)
    return new DomainError('invalid_payload', `${where} ${first.message}`);
  if (first?.path[0] === 'title' && (first.code === 'invalid_type' || first.code === 'too_small')) {
    return new DomainError('title_required');
  }
  // SPEC §10: a value too long is named as too long, with its limit, in one wording for every field.
  if (first?.code === 'too_big' && first.origin === 'string')
    return new DomainError('validation_failed', `${where}: ${tooLongMessage(Number(first.maximum))}`);
  if (first?.code === 'too_big' && first.origin === 'array')
    return new DomainError('validation_failed', `${where}: must have ${Number(first.maximum)} items or fewer`);
  return new DomainError('validation_failed', `${where}: ${first?.message ?? 'invalid'}`);
}

export function parseFields(body: Record<string, unknown>): TCreateTaskFields {
  const r = ZCreateTaskFields.safeParse(body);
  if (!r.success) throw validationError(r.error);
  return r.data;
}
