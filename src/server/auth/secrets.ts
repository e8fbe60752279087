// Small primitives shared by sessions and API tokens: random secrets, their stored digests, and
// constant-time comparison (issue 9 item 5: tokens compared in constant time, stored hashed).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes, base64url (43 characters). */
export function randomSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** What we store instead of a secret: sha256, hex. A fast hash is right here because the secret is random, not a password. */
export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time equality of two strings. Comparing fixed-length digests means not even the length leaks. */
export function safeEqual(a: string, b: string): boolean {
  const x = createHash('sha256').update(a, 'utf8').digest();
  const y = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(x, y);
}
