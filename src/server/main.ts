// Starts Tether: services (one DB client), migrations (SPEC §12), attestation, Next for the console pages,
// and the custom HTTP server that owns the port. `npm start` runs `next build` first; `npm run dev` passes --dev.
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Server } from 'node:http';
import { pathToFileURL } from 'node:url';
import { isDatabaseUnavailable } from './db/errors';
import { migrate, MigrationError } from './db/schema/migrate';
import { describePostgresUrl, isPostgresUrl } from './db/drivers/postgres-url';
import { startRelay } from './runtime/relay';
import { startRecoveryRuntime } from './runtime';
import type { Route } from './http/server';
import { createHttpServer } from './app';
import { createServices } from './create-services';
import type { Services } from './services';
import { ConfigError, loadConfig } from './config';
import { issueSetupToken } from './domain/users/setup';
import { startNext } from './pages';

export interface StartOptions {
  /** Next in development mode (compiles pages on demand, hot reload). */
  dev?: boolean;
  /** Serve the console pages through Next (default true). Tests of the API alone pass false. */
  pages?: boolean;
  port?: number;
  host?: string;
  services?: Services;
  /** The API routes to mount (default: every API of `apiRoutes`); tests replace one handler to compare it. */
  routes?: Route[];
  /** Where status lines go (default: the structured log, `services.log`); tests pass a no-op. */
  log?: (line: string) => void;
}

export interface RunningServer {
  server: Server;
  services: Services;
  /** e.g. http://localhost:3000 */
  url: string;
  close(): Promise<void>;
}

/** `postgresql://user:secret@h1,h2/db?…` → `postgresql://user@h1:5432,h2:5432/db` (no password, no credentials in
 *  query parameters); SQLite → the file path. */
export function describeDatabase(url: string): string {
  return isPostgresUrl(url) ? describePostgresUrl(url) : url.replace(/^(file|sqlite):(\/\/)?/i, '');
}

/** Migrations, then attestation (SPEC §12): what the server needs from its database before it is ready. */
async function prepareDatabase(services: Services): Promise<void> {
  const { store } = services;
  await migrate(store.driver);
  await services.readiness.refresh(store.driver);
}

/** While the database is down at start-up: first retry after this long, doubling up to the cap. */
const DATABASE_RETRY_FIRST_MS = 500;
const DATABASE_RETRY_MAX_MS = 5_000;

/**
 * SPEC §12: a server started while its database is down stays up, not ready (health 503 with the reason), and keeps
 * trying with backoff; once the database answers it migrates, attests and becomes ready. Resolves true then, false
 * if the server was closed first or preparing failed for another reason (that reason is then health's).
 */
async function prepareWhenDatabaseArrives(
  services: Services,
  log: (line: string) => void,
  stop: AbortSignal,
): Promise<boolean> {
  for (let delay = DATABASE_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, DATABASE_RETRY_MAX_MS)) {
    await sleep(delay, stop);
    if (stop.aborted) return false;
    try {
      await prepareDatabase(services);
      const r = services.readiness.current;
      log(
        `Tether: the database answers — schema v${services.readiness.version}, ${r.ready ? 'ready' : `NOT READY: ${r.reasons.join('; ')}`}`,
      );
      return true;
    } catch (err) {
      if (isDatabaseUnavailable(err)) continue;
      const reason = `start-up failed once the database answered: ${err instanceof Error ? err.message : String(err)}`;
      services.readiness.notReady(reason);
      services.log.error({ err }, `Tether: ${reason}`);
      return false;
    }
  }
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
  });
}

export async function startServer(opts: StartOptions = {}): Promise<RunningServer> {
  const services = opts.services ?? createServices();
  const log = opts.log ?? ((line: string) => services.log.info(line));
  const { config, store } = services;
  let pages: Awaited<ReturnType<typeof startNext>> | undefined;
  /** Set when the database did not answer at start-up: the server serves, not ready, until it does. */
  let databaseAway: string | undefined;
  try {
    try {
      await prepareDatabase(services);
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      databaseAway = err instanceof Error ? err.message : String(err);
      services.readiness.notReady(
        'database unavailable since start-up: migrations and attestation run once it answers',
      );
    }
    if (opts.pages !== false) pages = await startNext(opts.dev ?? false);
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }

  const server = createHttpServer(services, { next: pages?.handle, routes: opts.routes });
  const host = opts.host ?? config.host;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(opts.port ?? config.port, host, () => {
      server.off('error', fail);
      ok();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}`;
  const r = services.readiness.current;
  log(
    `Tether listening on ${url} — ${store.dialect} ${describeDatabase(config.databaseUrl)}, schema v${services.readiness.version}, ` +
      (r.ready ? 'ready' : `NOT READY: ${r.reasons.join('; ')}`) +
      (databaseAway ? ` (${databaseAway}); retrying` : ''),
  );
  // Test hooks can pause, fail or kill creates. Nobody should run like this by accident, so say it loudly.
  if (services.failpoints.enabled) {
    log(
      'WARNING: TEST HOOKS ARE ON (TETHER_FAILPOINTS=1 --test-hooks): /api/_test/failpoints can pause, fail or kill creates. Never serve real traffic like this.',
    );
  }

  // What runs once the database is prepared: at once, or when it first answers.
  let stopAttest: (() => Promise<void>) | undefined;
  let stopRelay: (() => Promise<void>) | undefined;
  let stopRecovery: (() => Promise<void>) | undefined;
  const startBackground = async () => {
    // First run (no users) prints a one-time link that creates the first admin (src/server/domain/users/setup.ts).
    const setupToken = opts.pages === false ? null : await issueSetupToken(services.store);
    if (setupToken) log(`No users yet. Create the first admin (one-time link): ${url}/setup?token=${setupToken}`);
    // SPEC §12: re-attest without a restart — periodically, at once when the database reports a missing table, and on
    // demand (`tether attest`, the console, a legacy resolution — in any process: requests are read from the database).
    stopAttest = services.readiness.watch(store.driver, {
      intervalMs: config.attestIntervalMs,
      log,
      latestRequest: () => store.attestationRequests.latestId(),
    });
    // SPEC §9: the outbox relay (live streams + webhooks). TETHER_RELAY=0 turns it off for this process.
    stopRelay = config.relay.enabled ? startRelay(services) : undefined;
    // SPEC §6: the recovery runtime runs in every server process. TETHER_RECOVERY=0 turns it off for this process.
    stopRecovery = config.recovery.enabled ? startRecoveryRuntime(services) : undefined;
  };
  const waiting = new AbortController();
  const background = databaseAway
    ? prepareWhenDatabaseArrives(services, log, waiting.signal).then(async (prepared) => {
        if (prepared && !waiting.signal.aborted) await startBackground();
      })
    : startBackground();
  if (databaseAway)
    background.catch((err: unknown) => services.log.error({ err }, 'Tether: background work failed to start'));
  else await background;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      waiting.abort();
      await background.catch(() => {});
      await stopRelay?.(); // ends live streams first, so server.close() is not held open by them
      await stopRecovery?.();
      await services.agentRunners.close(); // agent commands still running are stopped, and how they ended recorded
      await stopAttest?.();
      const stopped = new Promise<void>((ok) => server.close(() => ok()));
      server.closeIdleConnections();
      // In-flight requests get a few seconds to finish; then their sockets are cut.
      const force = setTimeout(() => server.closeAllConnections(), 5_000);
      await stopped;
      clearTimeout(force);
      await pages?.close().catch(() => {});
      await services.tokenUsage.close(); // when tokens were last used, noted since the last minute's write
      await store.close();
      services.requestLog.flush(); // the request lines still batched (observability/logger.ts)
    })());
  return { server, services, url, close };
}

/** `tsx src/server/main.ts [--dev]`: start, and stop cleanly on SIGTERM/SIGINT. */
async function main(argv: string[]): Promise<void> {
  // A reader of our output that goes away (a log collector restarting, `| head`) must neither stop nor spin the
  // server. Without a listener a failed write to stdout or stderr is an uncaught exception, which Next's handler
  // reports on stderr, which fails again: a loop that held ~75 % of a core. Lines written after that are lost; the
  // server goes on serving.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  // The command line is read here only: `--test-hooks` is half of the failpoint opt-in (config.ts).
  const running = await startServer({
    dev: argv.includes('--dev'),
    services: createServices({ config: loadConfig(undefined, argv) }),
  });
  const { log } = running.services;
  const stop = (signal: string) => {
    log.info(`Tether: ${signal} received, shutting down`);
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'Tether: shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    // One clear line (migration refusals explain themselves); the stack only for unexpected failures.
    console.error(`Tether failed to start: ${err instanceof Error ? err.message : String(err)}`);
    if (!(err instanceof MigrationError) && !(err instanceof ConfigError)) console.error(err);
    process.exit(1);
  });
}
