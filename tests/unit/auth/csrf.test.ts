// SPEC §11: cookie-authenticated mutations are refused without the session's CSRF token,
// and from another origin even with it.
import { describe, expect, it } from 'vitest';
import { checkCsrf, isSafeMethod } from '../../../src/server/auth/csrf';

const session = { csrfToken: 'tok_abcdefghijklmnopqrstuvwxyz0123456789ABCDE' };

describe('checkCsrf', () => {
  it('accepts the matching token from the same origin', () => {
    expect(
      checkCsrf(
        { host: 'localhost:3000', origin: 'http://localhost:3000', 'x-csrf-token': session.csrfToken },
        session,
      ),
    ).toBe(true);
  });

  it('accepts the matching token when the browser sends no Origin', () => {
    expect(checkCsrf({ host: 'localhost:3000', 'x-csrf-token': session.csrfToken }, session)).toBe(true);
  });

  it('refuses a cross-site form post (foreign Origin, no token header)', () => {
    expect(
      checkCsrf(
        { host: 'localhost:3000', origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        session,
      ),
    ).toBe(false);
  });

  it('refuses a missing token even from the same origin', () => {
    expect(checkCsrf({ host: 'localhost:3000', origin: 'http://localhost:3000' }, session)).toBe(false);
  });

  it('refuses a wrong token', () => {
    expect(checkCsrf({ host: 'localhost:3000', 'x-csrf-token': `${session.csrfToken}x` }, session)).toBe(false);
  });

  it('refuses the right token from another origin', () => {
    expect(
      checkCsrf(
        { host: 'localhost:3000', origin: 'http://localhost:3001', 'x-csrf-token': session.csrfToken },
        session,
      ),
    ).toBe(false);
  });

  it('refuses Origin: null', () => {
    expect(checkCsrf({ host: 'localhost:3000', origin: 'null', 'x-csrf-token': session.csrfToken }, session)).toBe(
      false,
    );
  });

  it('reads headers case-insensitively and takes the first of repeated values', () => {
    expect(
      checkCsrf(
        { Host: 'LocalHost:3000', Origin: 'http://localhost:3000', 'X-CSRF-Token': [session.csrfToken, 'other'] },
        session,
      ),
    ).toBe(true);
  });
});

describe('isSafeMethod', () => {
  it('treats only GET, HEAD and OPTIONS as safe', () => {
    expect(['GET', 'head', 'OPTIONS'].map(isSafeMethod)).toEqual([true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isSafeMethod)).toEqual([false, false, false, false]);
  });
});
