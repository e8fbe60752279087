// Console sign-in with email and password (SPEC §11), throttled per client address and per account
// (auth/sign-in-throttle.ts). Every answer is the same for an email nobody has: the same counts, the same 429s, the
// same password work (check-password.ts verifies against a decoy hash).
import {
  ACCOUNT_POLICY,
  accountKey,
  addressKey,
  addressPolicy,
  takeAttempt,
  type ThrottleDecision,
} from '../../auth/sign-in-throttle';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { checkUserPassword } from './check-password';
import type { User } from './user';

export interface SignInAttempt {
  email: string;
  password: string;
  /** The connection's address (null when there is none, e.g. a call made in-process). */
  clientAddress: string | null;
}

/** TETHER_SIGNIN_ADDRESS_FAILURES: free failures per client address; 0 does not throttle by address. */
export interface SignInSettings {
  addressFailures: number;
}

function throttled(decision: Extract<ThrottleDecision, { ok: false }>): DomainError {
  const seconds = decision.retryAfterSeconds;
  return new DomainError('sign_in_throttled', `try again in ${seconds} second${seconds === 1 ? '' : 's'}`, {
    'retry-after': String(seconds),
  });
}

/** The user whose email and password these are; else 401 `email or password is wrong`, or 429 while throttled. */
export async function signInWithPassword(
  store: Pick<Repositories, 'users' | 'signInThrottles'>,
  settings: SignInSettings,
  attempt: SignInAttempt,
  now = new Date(),
): Promise<User> {
  const repo = store.signInThrottles;
  const address = settings.addressFailures > 0 && attempt.clientAddress ? addressKey(attempt.clientAddress) : null;
  // The address first: a client already waiting out its failures counts nothing against the account it names.
  if (address) {
    const decision = await takeAttempt(repo, address, addressPolicy(settings.addressFailures), now);
    if (!decision.ok) throw throttled(decision);
  }
  const account = accountKey(attempt.email);
  const decision = await takeAttempt(repo, account, ACCOUNT_POLICY, now);
  if (!decision.ok) {
    if (address) await repo.refund(address); // no password was tried
    throw throttled(decision);
  }
  const user = await checkUserPassword(store, attempt.email, attempt.password);
  if (!user) {
    // The wait runs from this answer, not from when the attempt was counted (hashing takes a while).
    const failedAt = new Date().toISOString();
    await repo.stamp(account, failedAt);
    if (address) await repo.stamp(address, failedAt);
    throw new DomainError('unauthenticated', 'email or password is wrong');
  }
  // A success resets the account and takes back the address's one attempt; keys idle past the longest memory go.
  await repo.forget(account);
  if (address) await repo.refund(address);
  await repo.sweep(new Date(now.getTime() - ACCOUNT_POLICY.forgetAfterMs).toISOString());
  return user;
}
