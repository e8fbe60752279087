// Console sign-in throttling (SPEC §11): per account and per client address, 429 with a `Retry-After` that grows with
// repeated failures, shared by every server process through the database (sign_in_throttles), and never a hint
// whether an account exists — the account key is the email as typed (normalized), counted the same way whether or
// not anyone has that email.
//
// How a key is counted:
//   - an attempt is counted BEFORE its password is checked, in one compare-and-set: a burst of concurrent guesses
//     cannot all slip past the check while the first ones are still hashing. A failure then moves the key's time to
//     when it was known to have failed (the wait runs from the answer, however long the hashing took); a success
//     takes its count back (the account's whole count is reset; the address only gets its one attempt back, so one
//     good account cannot be used to wash an address's failures away);
//   - the first `free` failures cost nothing; after that the key waits 1 s, then 2 s, 4 s, … doubling with each
//     further failure, never longer than `maxWaitMs` (the growth is bounded: an attacker cannot lock a real person
//     out for longer than that by failing on purpose);
//   - attempts refused while a key waits are not counted (hammering a locked account does not lengthen its wait);
//   - a key is forgotten `forgetAfterMs` after its last failure, so old typos do not add up.
// A refused attempt does no password work at all, for a known email or an unknown one alike.
import { isIP } from 'node:net';
import type { SignInThrottleRepository, ThrottleCount } from '../db/repositories/sign-in-throttles';
import { digest } from './secrets';

export interface ThrottlePolicy {
  /** Failures that cost nothing. */
  free: number;
  /** The longest a key ever waits. */
  maxWaitMs: number;
  /** A key with no failure for this long starts again from zero. */
  forgetAfterMs: number;
}

/** Per account: a person who mistypes a few times is never slowed down; a guesser is, quickly. */
export const ACCOUNT_POLICY: ThrottlePolicy = { free: 5, maxWaitMs: 15 * 60_000, forgetAfterMs: 24 * 60 * 60_000 };

/** Per client address: more free failures (a NAT or an office shares one), forgotten sooner. TETHER_SIGNIN_ADDRESS_FAILURES. */
export function addressPolicy(free: number): ThrottlePolicy {
  return { free, maxWaitMs: 15 * 60_000, forgetAfterMs: 60 * 60_000 };
}

/** How long after its latest failure a key with `failures` counted must wait (0: not at all). */
export function waitAfter(policy: ThrottlePolicy, failures: number): number {
  if (failures < policy.free) return 0;
  return Math.min(policy.maxWaitMs, 1000 * 2 ** Math.min(30, failures - policy.free));
}

/** The email as typed, normalized as accounts store it (domain/users/user.ts normalizeEmail, without refusing). */
export function accountKey(email: string): string {
  return digest(`account:${email.trim().toLowerCase()}`);
}

/**
 * A client address as a key: an IPv4-mapped IPv6 address is its IPv4 address, and an IPv6 address counts as its /64
 * (one subscriber's usual allocation: otherwise each guess could come from a new address).
 */
export function addressKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  const ip = mapped ? mapped[1]! : bare;
  return digest(`address:${isIP(ip) === 6 ? (ipv6Prefix64(ip) ?? ip) : ip}`);
}

/** `2001:db8:1:2:3::4` → `2001:db8:1:2::/64`. */
function ipv6Prefix64(ip: string): string | null {
  const halves = ip.toLowerCase().split('::');
  if (halves.length > 2) return null;
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const width = (g: string[]) => g.reduce((n, x) => n + (x.includes('.') ? 2 : 1), 0); // a trailing a.b.c.d is two groups
  const head = groups(halves[0]);
  const all =
    halves.length === 1
      ? head
      : [
          ...head,
          ...Array<string>(Math.max(0, 8 - width(head) - width(groups(halves[1])))).fill('0'),
          ...groups(halves[1]),
        ];
  return `${all
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export type ThrottleDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Compare-and-set rounds before giving up on a key many processes are counting at once (then: wait a second). */
const ROUNDS = 5;

/** Counts one attempt on `key`, unless it must wait: then how long, in whole seconds (at least 1). */
export async function takeAttempt(
  repo: SignInThrottleRepository,
  key: string,
  policy: ThrottlePolicy,
  now = new Date(),
): Promise<ThrottleDecision> {
  for (let round = 0; round < ROUNDS; round++) {
    const row = await repo.find(key);
    const failures = live(row, policy, now) ? row!.failures : 0;
    const wait = waitAfter(policy, failures);
    if (wait > 0) {
      const remaining = Date.parse(row!.lastFailureAt) + wait - now.getTime();
      if (remaining > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(remaining / 1000)) };
    }
    if (await repo.write(key, row, failures + 1, now.toISOString())) return { ok: true };
  }
  return { ok: false, retryAfterSeconds: 1 };
}

function live(row: ThrottleCount | undefined, policy: ThrottlePolicy, now: Date): boolean {
  return row !== undefined && now.getTime() - Date.parse(row.lastFailureAt) <= policy.forgetAfterMs;
}
