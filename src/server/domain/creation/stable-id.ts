// Deterministic ids for rows a step makes, derived from (operation id, step index, purpose): a re-run after a
// crash computes the same id and finds its own row (SPEC §5 "idempotent under a deterministic key").
import { createHash } from 'node:crypto';

export function stableId(...parts: Array<string | number>): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  // UUID layout, version nibble 8 ("custom"), RFC 4122 variant.
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${h.slice(18, 20)}-${h.slice(20, 32)}`;
}
