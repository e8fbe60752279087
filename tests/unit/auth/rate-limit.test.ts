// Per-token rate limiting (the edges turn a refusal into 429 + Retry-After).
import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../../src/server/auth/rate-limit';
import { loadConfig } from '../../../src/server/config';

/** The limiter services.ts builds from this environment. */
function fromConfig(env: Record<string, string>) {
  const { auth } = loadConfig(env);
  return new RateLimiter(auth.rateLimitPerSec, auth.rateLimitBurst);
}

function limiter(perSecond: number, burst: number) {
  let now = 1_000_000;
  const l = new RateLimiter(perSecond, burst, () => now);
  return { l, advance: (ms: number) => (now += ms) };
}

describe('RateLimiter', () => {
  it('allows a burst, then refuses with a Retry-After of at least one second', () => {
    const { l } = limiter(2, 3);
    expect([l.take('a'), l.take('a'), l.take('a')].every((d) => d.ok)).toBe(true);
    expect(l.take('a')).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  it('refills at the configured rate', () => {
    const { l, advance } = limiter(2, 1);
    expect(l.take('a').ok).toBe(true);
    expect(l.take('a').ok).toBe(false);
    advance(500);
    expect(l.take('a').ok).toBe(true);
  });

  it('keeps separate buckets per actor', () => {
    const { l } = limiter(1, 1);
    expect(l.take('a').ok).toBe(true);
    expect(l.take('a').ok).toBe(false);
    expect(l.take('b').ok).toBe(true);
  });

  it('computes Retry-After from the deficit at slow rates', () => {
    const { l } = limiter(0.1, 1);
    l.take('a');
    expect(l.take('a')).toEqual({ ok: false, retryAfterSeconds: 10 });
  });

  it('is disabled by TETHER_RATE_LIMIT_PER_SEC=0', () => {
    const l = fromConfig({ TETHER_RATE_LIMIT_PER_SEC: '0' });
    expect(l.enabled).toBe(false);
    for (let i = 0; i < 10_000; i++) expect(l.take('a').ok).toBe(true);
  });

  it('defaults to a generous limit (1000/s, burst 2000)', () => {
    const l = fromConfig({});
    expect([l.perSecond, l.burst]).toEqual([1000, 2000]);
  });
});
