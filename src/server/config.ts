// The one reader of the environment: every setting Tether takes is declared here, validated once at
// start-up, and passed down through the services object. Nothing else in src/ reads `process.env`.
// An invalid value stops start-up with one line naming the variable (`ConfigError`). Every setting has a
// default that works on a fresh machine (README "Configuration" lists them).
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { z } from 'zod';
import { isPostgresUrl, parsePostgresUrl } from './db/drivers/postgres-url';
import { LOG_LEVELS, type LogSettings } from './observability/logger';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Unset and empty both mean "use the default" (a shell's `X= npm start` must not be an error). */
const unset = (v: unknown) => (v === '' ? undefined : v);

const int = (min: number) =>
  z.preprocess(
    unset,
    z
      .string()
      .regex(/^\d+$/, `must be a whole number`)
      .transform(Number)
      .pipe(z.number().int().min(min, `must be at least ${min}`).max(Number.MAX_SAFE_INTEGER))
      .optional(),
  );

/** `1`/`0` (also `true`/`false`, `on`/`off`). */
const flag = z.preprocess(
  unset,
  z
    .string()
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['1', '0', 'true', 'false', 'on', 'off'], { error: 'must be 1 or 0' }))
    .transform((v) => v === '1' || v === 'true' || v === 'on')
    .optional(),
);

const text = z.preprocess(unset, z.string().optional());

/** A PostgreSQL URL in libpq's form (several hosts, target_session_attrs, pgbouncer: db/drivers/postgres-url.ts):
 *  a URL node-postgres would misread is refused at start with the reason, never half-used. */
const libpqForm = (url: string, ctx: z.RefinementCtx) => {
  if (!isPostgresUrl(url)) return;
  try {
    parsePostgresUrl(url);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
};

/** A network in CIDR form, `127.0.0.0/8` or `::1/128`. */
export interface AllowedNetwork {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Comma-separated CIDRs (`127.0.0.0/8,::1/128`); each must be an IP address and a prefix length that fits it. */
const networks = z.preprocess(
  unset,
  z
    .string()
    .transform((v, ctx) => {
      const out: AllowedNetwork[] = [];
      for (const item of v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const m = /^([^/\s]+)\/(\d{1,3})$/.exec(item);
        const version = m ? isIP(m[1]!) : 0;
        const prefix = m ? Number(m[2]) : NaN;
        if (version === 0 || prefix > (version === 4 ? 32 : 128)) {
          ctx.addIssue({
            code: 'custom',
            message: `must be comma-separated networks in CIDR form, e.g. 10.0.0.0/8,fd00::/8 (${JSON.stringify(item)} is not one)`,
          });
          return z.NEVER;
        }
        out.push({ address: m![1]!, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
      }
      return out;
    })
    .optional(),
);

const ZEnv = z.object({
  DATABASE_URL: z.preprocess(
    unset,
    z
      .string()
      .trim()
      .regex(/^(postgres(ql)?:\/\/|file:|sqlite:)/i, 'must start with postgresql://, file: or sqlite:')
      .superRefine(libpqForm)
      .optional(),
  ),
  DIRECT_DATABASE_URL: z.preprocess(
    unset,
    z
      .string()
      .trim()
      .regex(/^postgres(ql)?:\/\//i, 'must start with postgresql:// (it is PostgreSQL itself, for migrations)')
      .superRefine(libpqForm)
      .refine(
        (url) => !/[?&]pgbouncer=true(&|$)/i.test(url),
        'must reach PostgreSQL itself, not PgBouncer (no pgbouncer=true)',
      )
      .optional(),
  ),
  TETHER_DATA_DIR: text,
  PORT: z.preprocess(
    unset,
    z.string().regex(/^\d+$/, 'must be a port number').transform(Number).pipe(z.number().max(65535)).optional(),
  ),
  HOST: text,
  NODE_ENV: text,
  TETHER_MAX_BODY_BYTES: int(1),
  TETHER_ATTACHMENT_MAX_BYTES: int(1),
  TETHER_LEASE_MS: int(50),
  TETHER_RECOVERY: flag,
  TETHER_RECOVERY_POLL_MS: int(1),
  TETHER_RELAY: flag,
  TETHER_RELAY_POLL_MS: int(1),
  TETHER_PG_POOL_SIZE: int(1),
  TETHER_PG_CONNECT_TIMEOUT_MS: int(1),
  TETHER_PG_QUERY_TIMEOUT_MS: int(1),
  TETHER_TOKEN_CACHE_MS: int(0),
  TETHER_RATE_LIMIT_PER_SEC: int(0),
  TETHER_RATE_LIMIT_BURST: int(1),
  TETHER_SECURE_COOKIES: flag,
  TETHER_WEBHOOK_LEASE_MS: int(1),
  TETHER_WEBHOOK_TIMEOUT_MS: int(1),
  TETHER_WEBHOOK_BACKOFF_MS: int(1),
  TETHER_WEBHOOK_MAX_BACKOFF_MS: int(1),
  TETHER_WEBHOOK_ALLOWED_NETWORKS: networks,
  TETHER_SIGNIN_ADDRESS_FAILURES: int(0),
  TETHER_FAILPOINTS: flag,
  TETHER_HEADERS_TIMEOUT_MS: int(1),
  TETHER_REQUEST_TIMEOUT_MS: int(1),
  TETHER_KEEP_ALIVE_TIMEOUT_MS: int(1),
  TETHER_MAX_CONNECTIONS: int(0),
  TETHER_MAX_CONNECTIONS_PER_CLIENT: int(0),
  TETHER_ATTEST_INTERVAL_MS: int(100),
  TETHER_CLEANUP_BACKOFF_MS: int(1),
  TETHER_LOG_LEVEL: z.preprocess(
    unset,
    z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).optional(),
  ),
  TETHER_AGENT_COMMAND: z.preprocess(
    unset,
    z
      .string()
      .transform((v, ctx) => {
        try {
          const argv: unknown = JSON.parse(v);
          if (
            Array.isArray(argv) &&
            argv.length > 0 &&
            argv.every((a) => typeof a === 'string' && a.length > 0 && !a.includes('\0'))
          )
            return argv as string[];
        } catch {
          // reported below
        }
        ctx.addIssue({
          code: 'custom',
          message:
            'must be a JSON array of strings (the program, then its arguments), e.g. ["/usr/local/bin/run-agent","--quiet"]',
        });
        return z.NEVER;
      })
      .optional(),
  ),
  TETHER_AGENT_TIMEOUT_MS: int(1),
  TETHER_LOG_FORMAT: z.preprocess(unset, z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional()),
  TETHER_CLEANUP_MAX_BACKOFF_MS: int(1),
});

/** The command-line flag that, with TETHER_FAILPOINTS=1, turns the test hooks on (main.ts passes argv). */
export const TEST_HOOKS_FLAG = '--test-hooks';

/** The HTTP server's limits (timeouts and connection caps) and body limits: `config.http`. */
export type HttpLimits = Config['http'];

/** Verified API tokens are cached at most this long (a revoke in another process takes effect within it). */
export const MAX_TOKEN_CACHE_MS = 2000;

export interface Config {
  databaseUrl: string;
  /**
   * PostgreSQL itself when `databaseUrl` goes through PgBouncer: what needs a session (migrations, which hold an
   * advisory lock across transactions) runs there (db/schema/migrate.ts). Null: everything uses `databaseUrl`.
   */
  directDatabaseUrl: string | null;
  port: number;
  host: string;
  dataDir: string;
  /** `NODE_ENV=production`. */
  production: boolean;
  http: {
    /** Largest accepted API request body (413 above). */
    maxBodyBytes: number;
    /** Largest attachment upload. */
    attachmentMaxBytes: number;
    /** Mark the session cookie Secure even behind a TLS-terminating proxy. */
    secureCookies: boolean;
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
  };
  postgres: {
    poolSize: number;
    connectTimeoutMs: number;
    queryTimeoutMs: number;
  };
  auth: {
    tokenCacheMs: number;
    /** Per-actor requests per second, per process; 0 disables. */
    rateLimitPerSec: number;
    rateLimitBurst: number;
    /**
     * SPEC §11: failed sign-ins one client address may make before it is throttled (auth/sign-in-throttle.ts);
     * 0 turns the per-address throttle off (behind a reverse proxy every sign-in comes from the proxy's address).
     */
    signInAddressFailures: number;
  };
  /** SPEC §4.2, §6: how long a creating request's lease lasts without renewal. */
  leaseMs: number;
  recovery: { enabled: boolean; pollMs: number };
  relay: { enabled: boolean; pollMs: number };
  webhooks: {
    leaseMs: number;
    timeoutMs: number;
    backoffMs: number;
    maxBackoffMs: number;
    /**
     * SPEC §9: networks outbound calls made for a workspace's configuration (webhooks, the webhook agent runner) may
     * reach although they are not public (loopback, private, link-local, …). Empty by default: only public addresses.
     */
    allowedNetworks: AllowedNetwork[];
  };
  /**
   * SPEC §4.4: a compensation handed to cleanup is retried by the runtime after `backoffMs`, doubling each time up
   * to `maxBackoffMs`, until it succeeds (runtime/cleanup.ts).
   */
  cleanup: { backoffMs: number; maxBackoffMs: number };
  /**
   * Failpoints are test hooks that can pause, fail or kill a create. So nobody serves with them by accident: on only with
   * TETHER_FAILPOINTS=1 *and* the `--test-hooks` flag on the server's command line, which no start script
   * passes (`npm start`, `npm run serve`, `npm run dev`), and never with NODE_ENV=production.
   */
  failpointsEnabled: boolean;
  /** SPEC §12: how often readiness re-attests the catalog without a restart (readiness.ts). */
  attestIntervalMs: number;
  /**
   * The built-in agent runner (runtime/agent-runners.ts): the command it runs per launch — argv, never a shell line —
   * or null when none is configured (launches through it then fail, recorded on the intent), and how long a run may
   * take before it is stopped.
   */
  agents: { command: string[] | null; timeoutMs: number };
  /** The structured log (observability/logger.ts): level, and JSON or readable lines (`auto`: readable on a terminal).
   *  Under the test runner (NODE_ENV=test) the default level is `silent`: tests stay quiet. */
  log: LogSettings;
}

/** A refused value is echoed in the error, but never a URL's password: `postgresql://u:secret@h` → `postgresql://u:***@h`. */
function withoutPassword(value: string | undefined): string | undefined {
  return value?.replace(/^([a-z]+:\/\/[^/?#@:]*):[^/?#]*@/i, '$1:***@');
}

/** Reads and validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  argv: readonly string[] = [],
): Config {
  const parsed = ZEnv.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`${name}: ${issue.message} (got ${JSON.stringify(withoutPassword(env[name]) ?? null)})`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.TETHER_DATA_DIR ?? './data');
  const production = e.NODE_ENV === 'production';
  const databaseUrl = e.DATABASE_URL ?? `file:${resolve(dataDir, 'tether.db')}`;
  if (e.DIRECT_DATABASE_URL && !isPostgresUrl(databaseUrl)) {
    throw new ConfigError(
      'DIRECT_DATABASE_URL: only for a PostgreSQL DATABASE_URL (it names the same database without PgBouncer)',
    );
  }
  const webhookLeaseMs = e.TETHER_WEBHOOK_LEASE_MS ?? 30_000;
  const ratePerSec = e.TETHER_RATE_LIMIT_PER_SEC ?? 1000;
  const headersTimeoutMs = e.TETHER_HEADERS_TIMEOUT_MS ?? 10_000;
  const requestTimeoutMs = e.TETHER_REQUEST_TIMEOUT_MS ?? 30_000;
  // Node refuses a headers timeout longer than the request timeout; say it in our words, at start.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError('TETHER_HEADERS_TIMEOUT_MS: must not be longer than TETHER_REQUEST_TIMEOUT_MS');
  }
  return {
    databaseUrl,
    directDatabaseUrl: e.DIRECT_DATABASE_URL ?? null,
    port: e.PORT ?? 3000,
    host: e.HOST ?? '0.0.0.0',
    dataDir,
    production,
    http: {
      maxBodyBytes: e.TETHER_MAX_BODY_BYTES ?? 1024 * 1024,
      attachmentMaxBytes: e.TETHER_ATTACHMENT_MAX_BYTES ?? 10 * 1024 * 1024,
      secureCookies: e.TETHER_SECURE_COOKIES ?? false,
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: e.TETHER_KEEP_ALIVE_TIMEOUT_MS ?? 65_000,
      maxConnections: e.TETHER_MAX_CONNECTIONS ?? 4096,
      maxConnectionsPerClient: e.TETHER_MAX_CONNECTIONS_PER_CLIENT ?? 256,
    },
    postgres: {
      poolSize: e.TETHER_PG_POOL_SIZE ?? Math.max(4, availableParallelism() * 4),
      // Fail fast when the database is away: no request hangs past these bounds.
      connectTimeoutMs: e.TETHER_PG_CONNECT_TIMEOUT_MS ?? 5_000,
      queryTimeoutMs: e.TETHER_PG_QUERY_TIMEOUT_MS ?? 30_000,
    },
    auth: {
      tokenCacheMs: Math.min(e.TETHER_TOKEN_CACHE_MS ?? MAX_TOKEN_CACHE_MS, MAX_TOKEN_CACHE_MS),
      rateLimitPerSec: ratePerSec,
      rateLimitBurst: e.TETHER_RATE_LIMIT_BURST ?? Math.max(1, ratePerSec * 2),
      signInAddressFailures: e.TETHER_SIGNIN_ADDRESS_FAILURES ?? 20,
    },
    // SPEC §6: short enough that a dead creator's operation is recovered within seconds; renewed every third.
    leaseMs: e.TETHER_LEASE_MS ?? 5_000,
    recovery: { enabled: e.TETHER_RECOVERY ?? true, pollMs: e.TETHER_RECOVERY_POLL_MS ?? 1_000 },
    relay: { enabled: e.TETHER_RELAY ?? true, pollMs: e.TETHER_RELAY_POLL_MS ?? 250 },
    webhooks: {
      leaseMs: webhookLeaseMs,
      // Under half the lease, so a request always ends well before anyone else may claim the webhook.
      timeoutMs: Math.min(e.TETHER_WEBHOOK_TIMEOUT_MS ?? 10_000, Math.floor(webhookLeaseMs / 2.5)),
      backoffMs: e.TETHER_WEBHOOK_BACKOFF_MS ?? 1_000,
      maxBackoffMs: e.TETHER_WEBHOOK_MAX_BACKOFF_MS ?? 3_600_000,
      allowedNetworks: e.TETHER_WEBHOOK_ALLOWED_NETWORKS ?? [],
    },
    cleanup: {
      backoffMs: e.TETHER_CLEANUP_BACKOFF_MS ?? 10_000,
      maxBackoffMs: e.TETHER_CLEANUP_MAX_BACKOFF_MS ?? 3_600_000,
    },
    failpointsEnabled: (e.TETHER_FAILPOINTS ?? false) && argv.includes(TEST_HOOKS_FLAG) && !production,
    attestIntervalMs: e.TETHER_ATTEST_INTERVAL_MS ?? 30_000,
    agents: { command: e.TETHER_AGENT_COMMAND ?? null, timeoutMs: e.TETHER_AGENT_TIMEOUT_MS ?? 30 * 60_000 },
    log: {
      level: e.TETHER_LOG_LEVEL ?? (e.NODE_ENV === 'test' ? 'silent' : 'info'),
      format: e.TETHER_LOG_FORMAT ?? 'auto',
    },
  };
}

/** What an agent command inherits from this process's environment: enough to find programs and read text, never
 *  the server's own settings (DATABASE_URL holds a password). */
const AGENT_ENV = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'];

/** The environment the built-in agent runner's command runs with: AGENT_ENV from this process, plus `extra`. */
export function agentCommandEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: Record<string, string> = {};
  for (const name of AGENT_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  // Next's types make NODE_ENV a required key of ProcessEnv; the command gets none of ours, on purpose.
  return { ...env, ...extra } as NodeJS.ProcessEnv;
}

/** The environment a child process (git) runs with: this process's, plus `extra`. */
export function childProcessEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}
