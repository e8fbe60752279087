// The built server (`node dist/server/main.mjs`, what `npm start` serves) started for the browser tests: each Playwright
// worker starts one of its own on its own SQLite file (the `server` fixture in e2e/support/console.ts), so tests of two
// workers never share a database, a failpoint or a session; onboarding.spec.ts starts one on an empty database.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
/** Built by `npm test`'s server build stage, or by playwright.config.ts when run alone. */
const SERVER_BUNDLE = join(ROOT, 'dist/server/main.mjs');
/** How many of the server's last output lines are kept to show when it dies or a test fails. */
const KEPT_LINES = 200;

/**
 * What the browser tests' server runs with. Failpoints are on so specs can pause a create: that takes both
 * TETHER_FAILPOINTS=1 and the `--test-hooks` flag, which no start script passes (src/server/config.ts).
 */
export const TEST_HOOKS_ENV = {
  TETHER_FAILPOINTS: '1',
  // One log line per request would bury the failure output: warnings and errors only.
  TETHER_LOG_LEVEL: 'warn',
  // A compensation handed to cleanup is retried within a second, so a spec can watch it fail three times.
  TETHER_CLEANUP_BACKOFF_MS: '150',
  // A create paused at a failpoint must stay unsettled for the whole spec, not be taken over by recovery.
  TETHER_LEASE_MS: '600000',
  // The specs' own requests (Node's fetch) keep a connection for the server's advertised keep-alive (65 s) minus a
  // second, on a timer that runs late on a busy machine, and the server closes it a second after the advertised time:
  // a request sent in between meets a closing connection ("other side closed" — seen once, in a spec whose previous
  // API call was about a minute earlier). With 10 minutes advertised, no worker lives long enough to meet that edge.
  TETHER_KEEP_ALIVE_TIMEOUT_MS: '600000',
};

export interface TetherServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `file:<path>` of its SQLite database, in a temp folder of its own (the seed and session caches sit beside it). */
  databaseUrl: string;
  /** Its output so far (stdout and stderr, at most the last KEPT_LINES lines). */
  output(): string[];
  /** How many lines it has written in all: `output()` lines written since a mark are `output().slice(-(now - mark))`. */
  linesWritten(): number;
  /** Set when it exited before stop() was called. */
  exited(): string | undefined;
  /** SIGTERM, waits for it to exit (SIGKILL after 10 s), and removes its database folder. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Passes `--test-hooks` and TEST_HOOKS_ENV. */
  testHooks: boolean;
  /** Called with every line the server writes (stdout and stderr). */
  onLine?: (line: string) => void;
  /** Called when the server exits before stop(): the reason and its last lines. */
  onUnexpectedExit?: (reason: string, lastLines: string[]) => void;
}

/**
 * A free loopback port no other process of this run has taken. Two workers asking at about the same time could be handed
 * the same port by the kernel between one asking and its server binding it, so a port is claimed first as a folder in
 * the run's folder (TETHER_E2E_RUN_DIR, made by playwright.config.ts): mkdir fails for the second claimant. Anything
 * outside the run that takes the port first makes our server exit with EADDRINUSE: startServer tries another.
 */
async function freePort(): Promise<number> {
  const runDir = process.env.TETHER_E2E_RUN_DIR;
  if (!runDir) throw new Error('TETHER_E2E_RUN_DIR is not set (playwright.config.ts sets it)');
  for (;;) {
    const port = await new Promise<number>((ok, fail) => {
      const srv = createServer();
      srv.once('error', fail);
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => ok(port));
      });
    });
    try {
      mkdirSync(join(runDir, `port-${port}`));
      return port;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/**
 * Starts the built server on a new SQLite file in a temp folder and a free loopback port, and resolves once
 * `/api/health` answers.
 */
export async function startServer(opts: StartOptions): Promise<TetherServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts, await freePort());
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(opts: StartOptions, port: number): Promise<TetherServer> {
  const folder = mkdtempSync(join(tmpdir(), 'tether-e2e-'));
  const databaseUrl = `file:${join(folder, 'tether.db')}`;
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER_BUNDLE, ...(opts.testHooks ? ['--test-hooks'] : [])], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      ...(opts.testHooks ? TEST_HOOKS_ENV : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

  const kept: string[] = [];
  let written = 0;
  const take = (stream: NodeJS.ReadableStream) => {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        kept.push(line);
        if (kept.length > KEPT_LINES) kept.shift();
        written++;
        opts.onLine?.(line);
      }
    });
  };
  take(child.stdout!);
  take(child.stderr!);

  let stopping = false;
  let exitReason: string | undefined;
  const exited = new Promise<void>((ok) =>
    child.once('exit', (code, signal) => {
      exitReason = signal ? `killed by ${signal}` : `exit code ${code}`;
      if (!stopping) opts.onUnexpectedExit?.(exitReason, [...kept]);
      ok();
    }),
  );

  const server: TetherServer = {
    url,
    databaseUrl,
    output: () => [...kept],
    linesWritten: () => written,
    exited: () => (stopping ? undefined : exitReason),
    async stop() {
      if (exitReason) return;
      stopping = true;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      rmSync(folder, { recursive: true, force: true });
    },
  };

  // Ready when /api/health answers at all (a server that is up but not ready answers 503 and says why).
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exitReason) {
      const output = kept.join('\n');
      if (output.includes('EADDRINUSE')) throw new PortTaken(`port ${port} taken`);
      throw new Error(`the test server exited before it answered (${exitReason}):\n${output}`);
    }
    const answered = await fetch(`${url}/api/health`).then(
      () => true,
      () => false,
    );
    if (answered) return server;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`the test server did not answer ${url}/api/health within 120 s:\n${kept.join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
