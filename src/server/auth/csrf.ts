// SPEC §11: cookie-authenticated mutations are protected against cross-site requests. Two independent
// checks: a custom header carrying the session's CSRF token (a cross-site form cannot set headers, and
// another origin cannot read the token), and, when the browser sends `Origin`, that it is this host.
import { header, type HeaderBag } from './headers';
import { safeEqual } from './secrets';

export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Methods that never change state, so they need no CSRF proof. */
export function isSafeMethod(method: string | undefined): boolean {
  return SAFE_METHODS.has((method ?? 'GET').toUpperCase());
}

/** True when a cookie-authenticated mutation carrying these headers may proceed. */
export function checkCsrf(headers: HeaderBag, session: { csrfToken: string }): boolean {
  const token = header(headers, CSRF_HEADER);
  if (!token || !safeEqual(token, session.csrfToken)) return false;
  const origin = header(headers, 'origin');
  if (origin === undefined) return true;
  const host = header(headers, 'host');
  if (!host) return false;
  try {
    // `Origin: null` (sandboxed frames, some redirects) fails to parse and is refused.
    return new URL(origin).host.toLowerCase() === host.trim().toLowerCase();
  } catch {
    return false;
  }
}
