// src/server/config.ts (issue 18): the failpoint test hooks need an opt-in no start script gives, and the HTTP
// limits have documented defaults and refuse unusable values at start.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config';

const scripts = (JSON.parse(readFileSync(resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The arguments a package.json script passes to src/server/main.ts, as main() sees them. */
function argsOf(script: string): string[] {
  const cmd = scripts[script]!;
  const words = cmd.slice(cmd.indexOf('src/server/main.ts')).split(/\s+/);
  return words.slice(1, words.includes('&&') ? words.indexOf('&&') : undefined);
}

describe('failpoints (test hooks) opt-in', () => {
  it('stay off with TETHER_FAILPOINTS=1 alone and NODE_ENV unset — how `npm run serve` starts', () => {
    expect(loadConfig({ TETHER_FAILPOINTS: '1' }, argsOf('serve')).failpointsEnabled).toBe(false);
  });

  it('stay off under every start script, whatever the environment says', () => {
    for (const script of ['start', 'serve', 'dev']) {
      expect(scripts[script], script).toContain('src/server/main.ts');
      expect(loadConfig({ TETHER_FAILPOINTS: '1' }, argsOf(script)).failpointsEnabled, script).toBe(false);
    }
  });

  it('need both TETHER_FAILPOINTS=1 and --test-hooks, and never with NODE_ENV=production', () => {
    expect(loadConfig({ TETHER_FAILPOINTS: '1' }, ['--test-hooks']).failpointsEnabled).toBe(true);
    expect(loadConfig({}, ['--test-hooks']).failpointsEnabled).toBe(false);
    expect(loadConfig({ TETHER_FAILPOINTS: 'true' }, ['--test-hooks']).failpointsEnabled).toBe(false);
    expect(loadConfig({ TETHER_FAILPOINTS: '1', NODE_ENV: 'production' }, ['--test-hooks']).failpointsEnabled).toBe(false);
  });
});

describe('HTTP limits and re-attestation interval', () => {
  it('default to the values README documents', () => {
    const c = loadConfig({});
    expect(c.http).toEqual({
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
    const c = loadConfig({ TETHER_HEADERS_TIMEOUT_MS: '2000', TETHER_REQUEST_TIMEOUT_MS: '5000', TETHER_MAX_CONNECTIONS_PER_CLIENT: '0', TETHER_ATTEST_INTERVAL_MS: '500' });
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
    expect(() => loadConfig({ TETHER_HEADERS_TIMEOUT_MS: '40000' })).toThrow('must not be longer than TETHER_REQUEST_TIMEOUT_MS');
  });
});
