// Browser tests run the BUILT app (`npm test` runs `next build` first) in Debian's Chromium headless shell. Each
// worker starts its own server — the server bundle `npm start` serves, with test hooks on — on its own fresh SQLite
// file and a free port (the `server` fixture, e2e/support/console.ts and e2e/support/server.ts), so the two workers'
// tests never share a database, a failpoint or a session. The config is evaluated again in every worker process: what
// is built here, once, is handed down through the environment.
import { defineConfig, devices } from '@playwright/test';
import { buildSync } from 'esbuild';
import { bundleOptions } from './scripts/bundle-options.mjs';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// The server bundle the workers start (scripts/build-server.mjs), built from the current sources — by `npm test`'s
// server build stage (TETHER_SERVER_BUILT=1), otherwise here.
if (process.env.TETHER_SERVER_BUILT !== '1') {
  execFileSync(process.execPath, [resolve(import.meta.dirname, 'scripts/build-server.mjs'), '--quiet'], {
    stdio: 'inherit',
  });
  process.env.TETHER_SERVER_BUILT = '1';
}
// Where the workers claim their servers' ports, so that no two servers of the run pick the same one (e2e/support/server.ts).
process.env.TETHER_E2E_RUN_DIR ??= mkdtempSync(join(tmpdir(), 'tether-e2e-run-'));
// The specs seed through the `tether` CLI (e2e/support/console.ts): `cli` starts it for one command, `cliBatch` runs
// several command lines through the CLI's own program in one process (e2e/support/cli-batch.ts). Under tsx each start
// compiles the CLI's sources again (~2 s of CPU); bundled once here from the same sources (scripts/bundle-options.mjs),
// a start costs a fraction of that.
if (!process.env.TETHER_E2E_CLI) {
  const outfile = resolve(import.meta.dirname, 'dist/e2e/tether-cli.mjs');
  buildSync(bundleOptions('src/cli/main.ts', outfile));
  process.env.TETHER_E2E_CLI = outfile;
}
if (!process.env.TETHER_E2E_CLI_BATCH) {
  const outfile = resolve(import.meta.dirname, 'dist/e2e/tether-cli-batch.mjs');
  buildSync(bundleOptions('e2e/support/cli-batch.ts', outfile));
  process.env.TETHER_E2E_CLI_BATCH = outfile;
}

const WORKERS = Number(process.env.TETHER_E2E_WORKERS ?? 2);
if (!Number.isInteger(WORKERS) || WORKERS < 1)
  throw new Error('TETHER_E2E_WORKERS must be a whole number of at least 1');

/**
 * Debian's Chromium headless shell (package `chromium-headless-shell`, the browser Playwright runs headless tests in;
 * the full `chromium` in headless mode cost ~20 % more CPU for the same specs): no sandbox as root in a container, and
 * nothing that reaches the internet.
 */
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
  // Files run one after the other within a worker (each file's tests in order, sharing its beforeAll seeding); two
  // workers, each with its own server, run two files at once. The browser tests wait on the browser and the server far
  // more than they compute, so two of them share two cores well. TETHER_E2E_WORKERS=1 runs them one at a time.
  workers: WORKERS,
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
    // A failed test keeps its last screen and its trace; the pictures a reader of the run wants are taken by the specs
    // (e2e/support/console.ts `screenshot`).
    screenshot: 'only-on-failure',
    // The trace of a failed test keeps its actions, network, console and sources, without the DOM snapshot Playwright
    // otherwise takes before and after every action (a quarter of the run's CPU, for every test, kept only for the
    // failed ones) or the film strip (a screencast of every page, ~10 %). A failure's last screen is the screenshot
    // above, and its page as an accessibility tree is the report's error context.
    trace: { mode: 'retain-on-failure', screenshots: false, snapshots: false },
    launchOptions: { executablePath: '/usr/bin/chromium-headless-shell', args: CHROMIUM_ARGS },
  },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'] } }],
});
