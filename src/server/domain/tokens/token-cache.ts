// A tiny in-process cache of verified API tokens, so the hot path usually costs no SQL at all.
// Why it is safe (SPEC §11, issue 9 item 5 "a revoked token stops working on the next request"):
// - it only remembers a token's stored digest, never "this secret was fine": every request still hashes
//   the presented secret and compares it in constant time, so a wrong secret is never admitted;
// - revoking through this process deletes the entry before the revoke returns;
// - entries live at most 2 s, so a revoke made by ANOTHER process (or the CLI) takes effect within 2 s.
// TETHER_TOKEN_CACHE_MS lowers the lifetime (0 disables the cache); values above 2000 are capped.
import type { VerifiedToken } from './api-tokens';

export const MAX_TOKEN_CACHE_MS = 2000;
const MAX_ENTRIES = 10_000;

interface Entry {
  secretHash: string;
  token: VerifiedToken;
  expiresAt: number;
}

function lifetime(): number {
  const raw = Number(process.env.TETHER_TOKEN_CACHE_MS ?? MAX_TOKEN_CACHE_MS);
  return Number.isFinite(raw) ? Math.min(Math.max(raw, 0), MAX_TOKEN_CACHE_MS) : MAX_TOKEN_CACHE_MS;
}

const entries = new Map<string, Entry>();
// Bumped by every invalidation. A verification that read the database before a revoke committed must
// not cache its (now stale) answer afterwards, so `set` only accepts results read in the current epoch.
let epoch = 0;

export const tokenCache = {
  get(id: string, now = Date.now()): Entry | undefined {
    const entry = entries.get(id);
    if (entry && entry.expiresAt > now) return entry;
    if (entry) entries.delete(id);
    return undefined;
  },
  /** Call before reading the database; pass the result to `set`. */
  epoch(): number {
    return epoch;
  },
  set(id: string, secretHash: string, token: VerifiedToken, readInEpoch: number, now = Date.now()): void {
    const ttl = lifetime();
    if (ttl <= 0 || readInEpoch !== epoch) return;
    // Bounded: when full, forget everything (a refill costs one query per token).
    if (entries.size >= MAX_ENTRIES) entries.clear();
    entries.set(id, { secretHash, token, expiresAt: now + ttl });
  },
  delete(id: string): void {
    epoch++;
    entries.delete(id);
  },
  clear(): void {
    epoch++;
    entries.clear();
  },
};
