// SPEC §2.1: the external identity's normalization, applied to the raw value in this order.
import { DomainError } from '../errors/domain-error';

// Any ASCII control character, anywhere (checked before trimming, SPEC §2.1 step 1).
const CONTROL = /[\u0000-\u001f\u007f]/;
// Unicode White_Space at either end (U+0085, U+00A0, U+3000 included; U+FEFF and U+200B are not White_Space).
const EDGE_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;
export const MAX_EXTERNAL_ID_BYTES = 255;

/**
 * Returns the normalized identity, or `undefined` when the request carries none (absent, null, or blank).
 * Everything else is kept byte-for-byte: no case folding, no Unicode normalization.
 */
export function normalizeExternalId(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') throw new DomainError('invalid_payload', 'external_id must be a string');
  if (CONTROL.test(raw)) throw new DomainError('invalid_external_id_control');
  // A lone surrogate has no UTF-8 spelling: storing it would silently change the value.
  if (!raw.isWellFormed()) throw new DomainError('invalid_payload', 'external_id must be well-formed Unicode');
  const trimmed = raw.replace(EDGE_WHITE_SPACE, '');
  if (trimmed === '') return undefined;
  if (Buffer.byteLength(trimmed, 'utf8') > MAX_EXTERNAL_ID_BYTES) throw new DomainError('invalid_external_id_length');
  return trimmed;
}

/** Lookup and release need an identity: a missing or blank value is a 400 (SPEC §2.1). */
export function requireExternalId(raw: unknown): string {
  const id = normalizeExternalId(raw);
  if (id === undefined) throw new DomainError('external_id_required');
  return id;
}
