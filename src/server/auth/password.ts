// Password hashing for console sign-in (SPEC §11): node's scrypt, no extra dependency. Encoded as
// `scrypt$N$r$p$salt$hash` (salt and hash base64url) so parameters can be raised later without invalidating stored
// hashes: verification always uses the parameters stored with the hash.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const SALT_LEN = 16;

function scrypt(password: string, salt: Buffer, keyLen: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    // maxmem must cover 128·N·r; the default (32 MiB) is exactly that for N=2^15, so give headroom.
    scryptCb(
      password.normalize('NFC'),
      salt,
      keyLen,
      { ...options, maxmem: 256 * options.N! * options.r! + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LEN);
  const key = await scrypt(password, salt, KEY_LEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** True when `password` matches `encoded`. A malformed or foreign encoding is a plain mismatch, never a throw. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [n, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  // Bounds keep a corrupted row from turning a sign-in into a memory or CPU bomb.
  const sane =
    Number.isInteger(n) && n >= 2 && n <= 1 << 20 && (n & (n - 1)) === 0 && r >= 1 && r <= 32 && p >= 1 && p <= 16;
  if (!sane) return false;
  const salt = Buffer.from(parts[4]!, 'base64url');
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (salt.length === 0 || expected.length < 16) return false;
  const actual = await scrypt(password, salt, expected.length, { N: n, r, p });
  return timingSafeEqual(actual, expected);
}
