// Secrets are compared in constant time. `safeEqual` hashes both sides first, so
// timingSafeEqual always compares 32 bytes (no length leak, no throw on different lengths); and the code paths
// that check a presented secret (API tokens, CSRF tokens) go through it rather than `===`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digest, safeEqual, sameDigest } from '../../../src/server/auth/secrets';

const source = (p: string) => readFileSync(resolve(import.meta.dirname, '../../../src/server', p), 'utf8');

describe('safeEqual', () => {
  it('is true only for identical strings', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });

  it('compares strings of different lengths without throwing (timingSafeEqual alone would)', () => {
    expect(safeEqual('short', 'a much longer presented value')).toBe(false);
    expect(safeEqual('é', 'e\u0301')).toBe(false);
  });
});

describe('sameDigest', () => {
  it('is true only for the same digest', () => {
    expect(sameDigest(digest('secret'), digest('secret'))).toBe(true);
    expect(sameDigest(digest('secret'), digest('secreT'))).toBe(false);
  });

  it('refuses anything that is not a 32-byte hex digest, without throwing', () => {
    expect(sameDigest('abc', 'abc')).toBe(false);
    expect(sameDigest(digest('x'), digest('x').slice(0, 62))).toBe(false);
    expect(sameDigest('', '')).toBe(false);
  });
});

describe('code paths that check a presented secret', () => {
  it('API token verification compares digests with sameDigest (constant time), never ===', () => {
    const code = source('domain/tokens/api-tokens.ts');
    const verify = code.slice(
      code.indexOf('export async function verifyApiToken'),
      code.indexOf('export async function revokeApiToken'),
    );
    expect(verify).toMatch(/sameDigest\(presentedHash, cached\.secretHash\)/);
    expect(verify).toMatch(/sameDigest\(presentedHash, token\.secretHash\)/);
    expect(verify).not.toMatch(/secretHash\s*[!=]==|[!=]==\s*\w*[sS]ecretHash/);
  });

  it('the CSRF check compares the token with safeEqual', () => {
    const code = source('auth/csrf.ts');
    expect(code).toMatch(/safeEqual\(token, session\.csrfToken\)/);
    expect(code).not.toMatch(/csrfToken\s*[!=]==|[!=]==\s*session\.csrfToken/);
  });
});
