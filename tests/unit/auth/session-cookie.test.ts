// Secure cookie flags on the console session.
import { describe, expect, it } from 'vitest';
import { secureCookies, sessionCookie } from '../../../src/server/auth/session';

describe('sessionCookie', () => {
  it('is HttpOnly, SameSite=Lax and Path=/ with the given lifetime', () => {
    const c = sessionCookie('abc', { secure: false, maxAge: 43200 });
    expect(c.split('; ')).toEqual(['tether_session=abc', 'HttpOnly', 'SameSite=Lax', 'Path=/', 'Max-Age=43200']);
  });

  it('adds Secure when asked', () => {
    expect(sessionCookie('abc', { secure: true, maxAge: 1 })).toMatch(/; Secure$/);
  });

  it('clears with an empty value and Max-Age=0', () => {
    expect(sessionCookie('', { secure: false, maxAge: 0 })).toContain('tether_session=; HttpOnly');
    expect(sessionCookie('', { secure: false, maxAge: 0 })).toContain('Max-Age=0');
  });
});

describe('secureCookies', () => {
  it('is on for https requests and when TETHER_SECURE_COOKIES=1, off otherwise', () => {
    expect(secureCookies(true, false)).toBe(true);
    expect(secureCookies(false, true)).toBe(true);
    expect(secureCookies(false, false)).toBe(false);
  });
});
