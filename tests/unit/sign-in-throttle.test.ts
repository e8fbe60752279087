// SPEC §11: the sign-in throttle's arithmetic (src/server/auth/sign-in-throttle.ts) — how long a key waits after
// repeated failures (growing, and bounded so nobody can be locked out for long on purpose), and which client
// addresses count as one. The database side, both dialects and two processes: tests/integration/auth/sign-in-*.test.ts.
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_POLICY,
  accountKey,
  addressKey,
  addressPolicy,
  waitAfter,
} from '../../src/server/auth/sign-in-throttle';

describe('waitAfter', () => {
  it('is free for the first failures, then doubles from one second', () => {
    expect([0, 1, 4, 5, 6, 7, 8].map((n) => waitAfter(ACCOUNT_POLICY, n))).toEqual([0, 0, 0, 1000, 2000, 4000, 8000]);
  });

  it('never grows past the policy bound, however many failures', () => {
    expect(waitAfter(ACCOUNT_POLICY, 15)).toBe(15 * 60_000);
    expect(waitAfter(ACCOUNT_POLICY, 1_000_000)).toBe(15 * 60_000);
    expect(waitAfter(addressPolicy(20), 19)).toBe(0);
    expect(waitAfter(addressPolicy(20), 20)).toBe(1000);
  });

  it('forgets a key long after its last failure, and never before its longest wait is over', () => {
    for (const p of [ACCOUNT_POLICY, addressPolicy(20)]) expect(p.forgetAfterMs).toBeGreaterThan(p.maxWaitMs);
  });
});

describe('keys', () => {
  it('an account is the email as typed, trimmed and lower-cased; a digest, never the email', () => {
    expect(accountKey('  Ops@Example.TEST ')).toBe(accountKey('ops@example.test'));
    expect(accountKey('ops@example.test')).toMatch(/^[0-9a-f]{64}$/);
    expect(accountKey('ops@example.test')).not.toBe(accountKey('ops2@example.test'));
  });

  it('an IPv4-mapped address is its IPv4 address', () => {
    expect(addressKey('::ffff:203.0.113.9')).toBe(addressKey('203.0.113.9'));
    expect(addressKey('203.0.113.9')).not.toBe(addressKey('203.0.113.10'));
  });

  it('IPv6 addresses count per /64, however they are written', () => {
    expect(addressKey('2001:db8:1:2::1')).toBe(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(addressKey('2001:0db8:0001:0002:0:0:0:9')).toBe(addressKey('2001:db8:1:2::9'));
    expect(addressKey('2001:db8::1')).toBe(addressKey('2001:db8:0:0:1::'));
    expect(addressKey('fe80::1%eth0')).toBe(addressKey('fe80::2'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
  });
});
