// Per-actor rate limiting (SPEC §11), so one token cannot starve everyone else: a token bucket per actor id, in memory,
// per process (`services.rateLimiter`). TETHER_RATE_LIMIT_PER_SEC sets the refill rate (default 1000/s; 0 disables),
// TETHER_RATE_LIMIT_BURST the bucket size (default twice the rate). Edges answer 429 `rate_limited` with `Retry-After:
// retryAfterSeconds`. Several server processes each keep their own buckets, so the effective limit is per process.

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 50_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly perSecond: number,
    readonly burst: number = perSecond * 2,
    private readonly clock: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  /** Takes one request's worth from the actor's bucket. */
  take(actorId: string): RateDecision {
    if (!this.enabled) return { ok: true };
    const now = this.clock();
    let bucket = this.buckets.get(actorId);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.sweep(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(actorId, bucket);
    } else {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)) };
  }

  /** Forgets buckets that have refilled completely: a fresh bucket is the same thing. */
  private sweep(now: number): void {
    for (const [id, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(id);
    }
    if (this.buckets.size >= MAX_BUCKETS) this.buckets.clear();
  }
}
