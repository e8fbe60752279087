// Browser tests run the BUILT app (`npm test` runs `next build` first) in Debian's Chromium, against a
// fresh SQLite database per run, on a free port. Failpoints are on so specs can pause a create: that takes both
// TETHER_FAILPOINTS=1 and the `--test-hooks` flag, which no start script passes (src/server/config.ts).
import { defineConfig, devices } from '@playwright/test';
import { buildSync } from 'esbuild';
import { bundleOptions } from './scripts/bundle-options.mjs';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

// The config is evaluated again in every worker process: choose the port and database once, in the
// runner, and hand them down through the environment so every process agrees.
process.env.TETHER_E2E_PORT ??= String(await freePort());
process.env.TETHER_E2E_DATABASE_URL ??= `file:${join(mkdtempSync(join(tmpdir(), 'tether-e2e-')), 'tether.db')}`;
// The specs seed through the `tether` CLI (e2e/support/console.ts), about a hundred starts a run. Under tsx each start
// compiles the CLI's sources again (~2 s of CPU); bundled once here from the same sources (scripts/bundle-options.mjs),
// a start costs a fraction of that.
if (!process.env.TETHER_E2E_CLI) {
  const outfile = resolve(import.meta.dirname, 'dist/e2e/tether-cli.mjs');
  buildSync(bundleOptions('src/cli/main.ts', outfile));
  process.env.TETHER_E2E_CLI = outfile;
}
const port = Number(process.env.TETHER_E2E_PORT);
const baseURL = `http://127.0.0.1:${port}`;

/** Debian's Chromium (brief): no sandbox as root in a container, and nothing that reaches the internet. */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

export default defineConfig({
  testDir: 'e2e',
  outputDir: 'test-results',
  fullyParallel: false,
  // One server, two shared cores: one worker keeps timings honest.
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two cores shared with other work: generous per-test and per-assertion budgets keep the suite honest, not flaky.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // The JSON report is what `npm test`'s summary reads to name the failed tests (scripts/test.mjs).
  reporter: [
    ['list'],
    ['json', { outputFile: '.test-summary/playwright.json' }],
    ...(process.env.CI ? [] : [['html', { open: 'never', outputFolder: 'playwright-report' }] as const]),
  ],
  use: {
    baseURL,
    // A failed test keeps its last screen and its trace; the pictures a reader of the run wants are taken by the specs
    // (e2e/support/console.ts `screenshot`).
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
  webServer: {
    // The server bundle `npm start` serves (scripts/build-server.mjs), built from the current sources — by `npm test`'s
    // server build stage (TETHER_SERVER_BUILT=1), otherwise here.
    command: `${process.env.TETHER_SERVER_BUILT === '1' ? '' : 'node scripts/build-server.mjs --quiet && '}node dist/server/main.mjs --test-hooks`,
    url: `${baseURL}/api/health`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    stderr: 'pipe',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 10_000 },
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: process.env.TETHER_E2E_DATABASE_URL,
      TETHER_FAILPOINTS: '1',
      // One log line per request would bury the test output: warnings and errors only.
      TETHER_LOG_LEVEL: 'warn',
      // A compensation handed to cleanup is retried within a second, so a spec can watch it fail three times.
      TETHER_CLEANUP_BACKOFF_MS: '150',
      // A create paused at a failpoint must stay unsettled for the whole spec, not be taken over by recovery.
      TETHER_LEASE_MS: '600000',
    },
  },
});
