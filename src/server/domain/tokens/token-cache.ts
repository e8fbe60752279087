// A tiny in-process cache of verified API tokens, so the hot path usually costs no SQL at all. One per Services
// (`services.tokenCache`). Why it is safe (SPEC §11: a revoked token stops working on the next request):
// - it only remembers a token's stored digest, never "this secret was fine": every request still hashes
//   the presented secret and compares it in constant time, so a wrong secret is never admitted;
// - revoking through this process deletes the entry before the revoke returns;
// - entries live at most 2 s (config.ts MAX_TOKEN_CACHE_MS), so a revoke made by ANOTHER process (or the CLI)
//   takes effect within 2 s. TETHER_TOKEN_CACHE_MS lowers the lifetime (0 disables the cache);
// - an entry never outlives its token's expiry: an expired token is refused on its first request after it expires.
import type { VerifiedToken } from './token';

const MAX_ENTRIES = 10_000;

interface Entry {
  secretHash: string;
  token: VerifiedToken;
  expiresAt: number;
}

export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  // Bumped by every invalidation. A verification that read the database before a revoke committed must
  // not cache its (now stale) answer afterwards, so `set` only accepts results read in the current epoch.
  private generation = 0;

  constructor(private readonly ttlMs: number) {}

  get(id: string, now = Date.now()): Entry | undefined {
    const entry = this.entries.get(id);
    if (entry && entry.expiresAt > now) return entry;
    if (entry) this.entries.delete(id);
    return undefined;
  }

  /** Call before reading the database; pass the result to `set`. */
  epoch(): number {
    return this.generation;
  }

  set(id: string, secretHash: string, token: VerifiedToken, readInEpoch: number, now = Date.now()): void {
    if (this.ttlMs <= 0 || readInEpoch !== this.generation) return;
    // Bounded: when full, forget everything (a refill costs one query per token).
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const notAfter = token.expiresAt === null ? Infinity : Date.parse(token.expiresAt);
    this.entries.set(id, { secretHash, token, expiresAt: Math.min(now + this.ttlMs, notAfter) });
  }

  delete(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
