// src/server/config.ts — one configuration, every setting read once and validated (a bad value stops
// start-up with one line naming the variable); the failpoint test hooks need an opt-in no start script
// gives, and the HTTP limits have documented defaults and refuse unusable values at start.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config';

const scripts = (
  JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** The server a package.json script starts: the sources under tsx (`dev`), or their bundle (`start`, `serve`). */
const SERVER_ENTRY = /(src\/server\/main\.ts|dist\/server\/main\.mjs)/;

/** The arguments a package.json script passes to the server, as main() sees them. */
function argsOf(script: string): string[] {
  const cmd = scripts[script]!;
  const words = cmd.slice(cmd.search(SERVER_ENTRY)).split(/\s+/);
  return words.slice(1, words.includes('&&') ? words.indexOf('&&') : undefined);
}

describe('loadConfig', () => {
  it('has a default for everything on a fresh machine (embedded SQLite under ./data)', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).toMatch(/^file:.*\/data\/tether\.db$/);
    expect([c.port, c.host, c.leaseMs, c.http.maxBodyBytes, c.auth.rateLimitPerSec, c.auth.rateLimitBurst]).toEqual([
      3000,
      '0.0.0.0',
      5000,
      1048576,
      1000,
      2000,
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
    expect([
      c.port,
      c.leaseMs,
      c.recovery.enabled,
      c.relay.pollMs,
      c.auth.rateLimitPerSec,
      c.http.secureCookies,
    ]).toEqual([0, 800, false, 20, 0, true]);
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
    ['TETHER_WEBHOOK_ALLOWED_NETWORKS', '127.0.0.1'],
    ['TETHER_WEBHOOK_ALLOWED_NETWORKS', '10.0.0.0/33'],
    ['TETHER_WEBHOOK_ALLOWED_NETWORKS', '::1/129'],
    ['TETHER_WEBHOOK_ALLOWED_NETWORKS', 'localhost/8'],
    ['TETHER_SIGNIN_ADDRESS_FAILURES', 'many'],
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

  it('allows no inside network to webhooks unless TETHER_WEBHOOK_ALLOWED_NETWORKS lists it (SPEC §9)', () => {
    expect(loadConfig({}).webhooks.allowedNetworks).toEqual([]);
    expect(loadConfig({ TETHER_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8, ::1/128' }).webhooks.allowedNetworks).toEqual([
      { address: '127.0.0.0', prefix: 8, family: 'ipv4' },
      { address: '::1', prefix: 128, family: 'ipv6' },
    ]);
  });
});

describe('failpoints (test hooks) opt-in', () => {
  it('stay off with TETHER_FAILPOINTS=1 alone and NODE_ENV unset — how `npm run serve` starts', () => {
    expect(loadConfig({ TETHER_FAILPOINTS: '1' }, argsOf('serve')).failpointsEnabled).toBe(false);
  });

  it('stay off under every start script, whatever the environment says', () => {
    for (const script of ['start', 'serve', 'dev']) {
      expect(scripts[script], script).toMatch(SERVER_ENTRY);
      expect(loadConfig({ TETHER_FAILPOINTS: '1' }, argsOf(script)).failpointsEnabled, script).toBe(false);
    }
  });

  it('need both TETHER_FAILPOINTS=1 and --test-hooks, and never with NODE_ENV=production', () => {
    expect(loadConfig({ TETHER_FAILPOINTS: '1' }, ['--test-hooks']).failpointsEnabled).toBe(true);
    expect(loadConfig({}, ['--test-hooks']).failpointsEnabled).toBe(false);
    expect(loadConfig({ TETHER_FAILPOINTS: '1', NODE_ENV: 'production' }, ['--test-hooks']).failpointsEnabled).toBe(
      false,
    );
  });
});

describe('HTTP limits and re-attestation interval', () => {
  it('default to the values README documents', () => {
    const c = loadConfig({});
    expect(c.http).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      maxConnections: 4096,
      maxConnectionsPerClient: 256,
    });
    expect(c.attestIntervalMs).toBe(30_000);
    const readme = readFileSync(resolve(import.meta.dirname, '../../README.md'), 'utf8');
    for (const row of [
      '| `TETHER_HEADERS_TIMEOUT_MS` | `10000` |',
      '| `TETHER_REQUEST_TIMEOUT_MS` | `30000` |',
      '| `TETHER_KEEP_ALIVE_TIMEOUT_MS` | `65000` |',
      '| `TETHER_MAX_CONNECTIONS` | `4096` |',
      '| `TETHER_MAX_CONNECTIONS_PER_CLIENT` | `256` |',
      '| `TETHER_ATTEST_INTERVAL_MS` | `30000` |',
    ]) {
      expect(readme.includes(row), `README row ${row}`).toBe(true);
    }
  });

  it('take whole numbers from the environment (0 turns a connection cap off)', () => {
    const c = loadConfig({
      TETHER_HEADERS_TIMEOUT_MS: '2000',
      TETHER_REQUEST_TIMEOUT_MS: '5000',
      TETHER_MAX_CONNECTIONS_PER_CLIENT: '0',
      TETHER_ATTEST_INTERVAL_MS: '500',
    });
    expect(c.http).toMatchObject({ headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxConnectionsPerClient: 0 });
    expect(c.attestIntervalMs).toBe(500);
  });

  it('refuse values that are set but unusable, naming the variable', () => {
    for (const [name, value] of [
      ['TETHER_REQUEST_TIMEOUT_MS', '30s'],
      ['TETHER_HEADERS_TIMEOUT_MS', '0'],
      ['TETHER_MAX_CONNECTIONS', '-1'],
      ['TETHER_ATTEST_INTERVAL_MS', '1e3'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
    expect(() => loadConfig({ TETHER_HEADERS_TIMEOUT_MS: '40000' })).toThrow(
      'must not be longer than TETHER_REQUEST_TIMEOUT_MS',
    );
  });
});
