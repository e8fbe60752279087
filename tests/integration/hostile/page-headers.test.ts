// Console pages carry security headers (next.config.mjs): a CSP that forbids framing
// (frame-ancestors 'none') and plugins, a same-origin referrer policy, X-Frame-Options and nosniff — checked
// on the BUILT app's real HTML responses (`npm test` builds first; outside CI a run without `.next` skips this file, in CI it must not).
import { describe, expect, it } from 'vitest';
import { runBuiltApp, useBuiltApp } from '../../support/built-app';

// Headers do not depend on the dialect: one run (the sqlite project) is enough.
describe.runIf(runBuiltApp)('security headers on console pages (built app)', () => {
  const app = useBuiltApp();

  for (const path of ['/', '/signin']) {
    it(`${path}: CSP with frame-ancestors 'none', referrer policy, no framing, nosniff`, async () => {
      const res = await fetch(app().url + path, { redirect: 'manual' });
      expect(res.status).toBeLessThan(500);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("default-src 'self'");
      expect(csp).not.toContain('unsafe-eval'); // production build: no eval
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-powered-by')).toBeNull();
    });
  }
});
