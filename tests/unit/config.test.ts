// Issue 13: one configuration. Every setting is read once and validated; a bad value stops start-up with one line
// that names the variable.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config';

describe('loadConfig', () => {
  it('has a default for everything on a fresh machine (embedded SQLite under ./data)', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toMatch(/^file:.*\/data\/tether\.db$/);
    expect([c.port, c.host, c.leaseMs, c.http.maxBodyBytes, c.auth.rateLimitPerSec, c.auth.rateLimitBurst]).toEqual([
      3000, '0.0.0.0', 5000, 1048576, 1000, 2000,
    ]);
    expect([c.recovery.enabled, c.relay.enabled, c.failpointsEnabled]).toEqual([true, true, false]);
  });

  it('reads every setting it documents', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgresql://u@h/db',
      PORT: '0',
      TETHER_LEASE_MS: '800',
      TETHER_RECOVERY: '0',
      TETHER_RELAY_POLL_MS: '20',
      TETHER_TOKEN_CACHE_MS: '99999',
      TETHER_RATE_LIMIT_PER_SEC: '0',
      TETHER_WEBHOOK_LEASE_MS: '1000',
      TETHER_WEBHOOK_TIMEOUT_MS: '5000',
      TETHER_SECURE_COOKIES: '1',
    });
    expect(c.databaseUrl).toBe('postgresql://u@h/db');
    expect([c.port, c.leaseMs, c.recovery.enabled, c.relay.pollMs, c.auth.rateLimitPerSec, c.http.secureCookies]).toEqual([
      0, 800, false, 20, 0, true,
    ]);
    // Capped: the cache bound is what makes a revoke elsewhere take effect within 2 s; the webhook timeout stays
    // under half its lease.
    expect([c.auth.tokenCacheMs, c.webhooks.timeoutMs]).toEqual([2000, 400]);
  });

  it.each([
    ['TETHER_LEASE_MS', 'soon'],
    ['TETHER_MAX_BODY_BYTES', '-5'],
    ['PORT', '99999'],
    ['TETHER_RELAY', 'maybe'],
    ['DATABASE_URL', 'mysql://x'],
  ])('refuses %s=%s with one line naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message.startsWith(`${name}: `)).toBe(true);
    expect((err as Error).message).toContain(JSON.stringify(value));
    expect((err as Error).message).not.toContain('\n');
  });

  it("picks PostgreSQL's creation store: one-statement unless TETHER_PG_ONE_STATEMENT=0", () => {
    expect(loadConfig({}).postgres.oneStatementCreate).toBe(true);
    expect(loadConfig({ TETHER_PG_ONE_STATEMENT: '0' }).postgres.oneStatementCreate).toBe(false);
    expect(() => loadConfig({ TETHER_PG_ONE_STATEMENT: 'fast' })).toThrow(/^TETHER_PG_ONE_STATEMENT: /);
  });

  it('never enables failpoints in production', () => {
    expect(loadConfig({ TETHER_FAILPOINTS: '1' }).failpointsEnabled).toBe(true);
    expect(loadConfig({ TETHER_FAILPOINTS: '1', NODE_ENV: 'production' }).failpointsEnabled).toBe(false);
  });
});
