// Process configuration, read once. Every setting has a default that works on a fresh machine; a value that is
// set but unusable stops the start with one clear line instead of being silently replaced.
import { resolve } from 'node:path';

export interface HttpLimits {
  /** The request line and headers must arrive within this (slow-header clients are cut off). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this (slow-body clients are cut off). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection waits for its next request. */
  keepAliveTimeoutMs: number;
  /** Open connections at once, over all clients (0: no cap). */
  maxConnections: number;
  /** Open connections at once from one client address (0: no cap). */
  maxConnectionsPerClient: number;
}

export interface Config {
  databaseUrl: string;
  port: number;
  host: string;
  dataDir: string;
  /**
   * Failpoints are test hooks (issue 3 item 7) that can pause, fail or kill a create. Issue 18: on only with
   * TETHER_FAILPOINTS=1 *and* the `--test-hooks` flag on the server's command line, which no start script
   * passes (`npm start`, `npm run serve`, `npm run dev`), and never with NODE_ENV=production.
   */
  failpointsEnabled: boolean;
  http: HttpLimits;
  /** SPEC §12: how often readiness re-attests the catalog without a restart (readiness.ts). */
  attestIntervalMs: number;
}

type Env = Record<string, string | undefined>;

/** A setting that is set but unusable: main.ts prints its message as the one line of a failed start. */
export class ConfigError extends Error {}

/** The command-line flag that, with TETHER_FAILPOINTS=1, turns the test hooks on (main.ts passes argv). */
export const TEST_HOOKS_FLAG = '--test-hooks';

export function loadConfig(env: Env = process.env, argv: readonly string[] = []): Config {
  const dataDir = resolve(env.TETHER_DATA_DIR ?? './data');
  const setting = (name: string, dflt: number, min: number) => wholeNumber(env, name, dflt, min);
  const http: HttpLimits = {
    headersTimeoutMs: setting('TETHER_HEADERS_TIMEOUT_MS', 10_000, 1),
    requestTimeoutMs: setting('TETHER_REQUEST_TIMEOUT_MS', 30_000, 1),
    keepAliveTimeoutMs: setting('TETHER_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1),
    maxConnections: setting('TETHER_MAX_CONNECTIONS', 4096, 0),
    maxConnectionsPerClient: setting('TETHER_MAX_CONNECTIONS_PER_CLIENT', 256, 0),
  };
  // Node refuses a headers timeout longer than the request timeout; say it in our words, at start.
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError('TETHER_HEADERS_TIMEOUT_MS must not be longer than TETHER_REQUEST_TIMEOUT_MS');
  }
  return {
    databaseUrl: env.DATABASE_URL?.trim() || `file:${resolve(dataDir, 'tether.db')}`,
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    failpointsEnabled: env.TETHER_FAILPOINTS === '1' && argv.includes(TEST_HOOKS_FLAG) && env.NODE_ENV !== 'production',
    http,
    attestIntervalMs: setting('TETHER_ATTEST_INTERVAL_MS', 30_000, 100),
  };
}

/** An unset (or empty) variable is the default; anything else must be a whole number ≥ min. */
function wholeNumber(env: Env, name: string, dflt: number, min: number): number {
  const raw = env[name]?.trim();
  if (!raw) return dflt;
  const n = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min)) throw new ConfigError(`${name} must be a whole number of at least ${min} (got ${JSON.stringify(raw)})`);
  return n;
}
