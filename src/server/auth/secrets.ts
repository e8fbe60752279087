// Small primitives shared by sessions and API tokens: random secrets, their stored digests, and constant-time
// comparison (SPEC §11: a token is stored only as a digest, and a comparison takes the same time whatever it matches,
// so timing tells an attacker nothing).
import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url (43 characters). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What we store instead of a secret: sha256, hex. A fast hash is right here because the secret is random, not a password. */
export function digest(secret: string): string {
  return hash('sha256', secret, 'hex'); // one-shot: no Hash object per request (every API call digests its token)
}

/**
 * Constant-time equality of two digests from `digest()`: both are 64 hex characters, so they are compared as they
 * are (no re-hashing; a length difference means one is not a digest at all).
 */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

/** Constant-time equality of two strings. Comparing fixed-length digests means not even the length leaks. */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest();
  const y = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(x, y);
}
