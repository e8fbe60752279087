#!/usr/bin/env node
// `npm test`: the whole suite, in three steps; a step in which a stage failed is the last one run.
//   1. typecheck → next build  ‖  lint → format check  ‖  client build → openapi build → server build
//   2. vitest (projects unit, sqlite, postgres)
//   3. playwright (the built app in Chromium)
// `‖` runs side by side (two cores: the checks and builds are single-threaded until next build). Each stage's output is printed
// whole when it ends (the longest stage of a step streams as it runs); the summary gives every stage's own time and
// each step's wall time.
// Flags: --no-e2e (skip Playwright), --e2e-only (server and next builds, then Playwright).
// Prerequisites are checked first and never silently skipped: PostgreSQL server binaries and PgBouncer (for the
// postgres project, unless TEST_DATABASE_URL is given) and Debian's Chromium headless shell (for Playwright). As root
// on Debian they are installed with apt; anywhere else a missing one fails with the command to run.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (a !== '--e2e-only' && a !== '--no-e2e') {
    console.error(`unknown flag ${a} (use --e2e-only or --no-e2e)`);
    process.exit(2);
  }
}
const e2eOnly = args.has('--e2e-only');
const withE2e = !args.has('--no-e2e');
if (e2eOnly && !withE2e) {
  console.error('--e2e-only and --no-e2e exclude each other');
  process.exit(2);
}

const bin = (name) => join('node_modules', '.bin', name);
const SUMMARY_DIR = '.test-summary';
const STAGE = {
  typecheck: { cmd: bin('tsc'), args: ['--noEmit'], core: true },
  lint: { cmd: bin('eslint'), args: ['.'], core: true },
  // `npm run format` writes what this checks (.prettierrc.json; prose and generated files are left alone).
  'format check': { cmd: bin('prettier'), args: ['--check', '.'], core: true },
  // The builds come before vitest: tests type-check and run a client project against the built `tether/client`, and a
  // few integration tests check the built app's page responses.
  'client build': { cmd: process.execPath, args: ['scripts/build-client.mjs'], core: true },
  // dist/openapi.json, as `npm run build` writes it; the document itself is checked by the vitest stage.
  'openapi build': { cmd: bin('tsx'), args: ['scripts/build-openapi.ts'], core: true },
  // dist/server/main.mjs, the server `npm start` serves; the built-app tests, Playwright and the bench start it.
  'server build': { cmd: process.execPath, args: ['scripts/build-server.mjs'], core: true, e2e: true },
  // After typecheck, which reads what next build writes (next-env.d.ts, .next/types). Next's own type check is the same
  // tsc over the same tsconfig: when the typecheck stage ran, next.config.mjs skips it (TETHER_TYPES_CHECKED=1).
  'next build': { cmd: bin('next'), args: ['build'], core: true, e2e: true },
  // The JSON reports (vitest's here, Playwright's in playwright.config.ts) let the summary name the failed tests.
  vitest: {
    cmd: bin('vitest'),
    args: ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${join(SUMMARY_DIR, 'vitest.json')}`],
    core: true,
    needs: ['postgres'],
    report: 'vitest.json',
  },
  playwright: { cmd: bin('playwright'), args: ['test'], e2e: true, needs: ['chromium'], report: 'playwright.json' },
};
/** Steps, run one after the other; each is lanes run side by side; each lane is stages run in order. */
const PLAN = [
  [
    ['typecheck', 'next build'],
    ['lint', 'format check'],
    ['client build', 'openapi build', 'server build'],
  ],
  // One after the other. Measured on a quiet machine: in turn, vitest 398 s and Playwright 437 s; side by side, 905 s
  // for both — the load reached 10 (vitest's tests start servers, CLIs and compilers of their own), Playwright took
  // 15 minutes, and a recovery test waiting 15 s for convergence timed out.
  [['vitest']],
  [['playwright']],
];

const wanted = (name) => {
  const s = STAGE[name];
  return e2eOnly ? Boolean(s.e2e) : s.core || (s.e2e && withE2e);
};
const STEPS = PLAN.map((lanes) => lanes.map((lane) => lane.filter(wanted)).filter((lane) => lane.length > 0)).filter(
  (lanes) => lanes.length > 0,
);
const STAGES = STEPS.flat(2).map((name) => ({ name, ...STAGE[name] }));
if (STAGES.some((s) => s.name === 'typecheck')) STAGE['next build'].env = { TETHER_TYPES_CHECKED: '1' };
// The typed-client tests install the client package as `npm run build` makes it: the client build stage has just
// made it from these sources (dist/client), so they copy it rather than build it again.
if (STAGES.some((s) => s.name === 'client build')) STAGE.vitest.env = { TETHER_CLIENT_BUILT: '1' };

// ---- prerequisites ---------------------------------------------------------------------------------

// Chromium's headless shell (Debian `chromium-headless-shell`): the browser Playwright itself runs headless tests in.
// The full `chromium` in headless mode drew ~20 % more CPU for the same specs, and Playwright is CPU-bound on 2 cores.
const CHROMIUM = '/usr/bin/chromium-headless-shell';
// The topology tests put PgBouncer in front of their own PostgreSQL (tests/support/postgres-cluster.ts).
const PGBOUNCER = '/usr/sbin/pgbouncer';

function postgresBinaries() {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  return readdirSync(base).find((v) => existsSync(join(base, v, 'bin', 'postgres')));
}

const needed = new Set(STAGES.flatMap((s) => s.needs ?? []));
const missing = [];
if (needed.has('postgres') && !process.env.TEST_DATABASE_URL && !postgresBinaries()) missing.push('postgresql');
if (needed.has('postgres') && !process.env.TEST_DATABASE_URL && !existsSync(PGBOUNCER)) missing.push('pgbouncer');
if (needed.has('chromium') && !existsSync(CHROMIUM)) missing.push('chromium-headless-shell');

if (missing.length > 0) {
  const isRoot = process.getuid?.() === 0;
  const isDebian = existsSync('/etc/debian_version');
  if (!isRoot || !isDebian) {
    console.error(
      `npm test needs the Debian package(s) ${missing.join(', ')}` +
        (missing.includes('postgresql')
          ? ' (PostgreSQL server binaries under /usr/lib/postgresql/*/bin, or set TEST_DATABASE_URL)'
          : '') +
        (missing.includes('pgbouncer') ? ` (PgBouncer at ${PGBOUNCER})` : '') +
        (missing.includes('chromium-headless-shell') ? ` (Chromium's headless shell at ${CHROMIUM})` : '') +
        `.\nInstall them with: sudo apt-get install -y ${missing.join(' ')}`,
    );
    process.exit(1);
  }
  console.log(`Installing missing prerequisites with apt: ${missing.join(', ')}`);
  if (missing.includes('postgresql')) {
    // The tests start their own throwaway server (tests/support/postgres-server.ts); the packaged "main"
    // cluster is not needed, so don't let the package create and start one.
    mkdirSync('/etc/postgresql-common', { recursive: true });
    if (!existsSync('/etc/postgresql-common/createcluster.conf')) {
      writeFileSync('/etc/postgresql-common/createcluster.conf', 'create_main_cluster = false\n');
    }
  }
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (aptArgs) => spawnSync('apt-get', aptArgs, { stdio: 'inherit', env }).status === 0;
  const ok = apt(['update']) && apt(['install', '-y', '-o', 'Dpkg::Options::=--force-confold', ...missing]);
  if (
    !ok ||
    (missing.includes('chromium-headless-shell') && !existsSync(CHROMIUM)) ||
    (missing.includes('postgresql') && !postgresBinaries()) ||
    (missing.includes('pgbouncer') && !existsSync(PGBOUNCER))
  ) {
    console.error(`apt-get could not install ${missing.join(', ')}; install them and re-run npm test.`);
    process.exit(1);
  }
}

// ---- stages ----------------------------------------------------------------------------------------

// The server build stage has just bundled these sources: Playwright's config need not bundle them again for the
// servers its workers start (playwright.config.ts).
const ENV = { ...process.env, TETHER_SERVER_BUILT: '1' };

/** Runs one stage; `live` streams its output, otherwise the output is printed whole when it ends. */
function runStage(name, live) {
  const stage = STAGE[name];
  const line = `=== ${name}: ${[stage.cmd, ...stage.args].join(' ')}`;
  if (live) console.log(`\n${line}`);
  if (stage.report) rmSync(join(SUMMARY_DIR, stage.report), { force: true });
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(stage.cmd, stage.args, {
      stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
      env: { ...ENV, ...stage.env },
    });
    const chunks = [];
    if (!live) {
      child.stdout.on('data', (d) => chunks.push(d));
      child.stderr.on('data', (d) => chunks.push(d));
    }
    let error;
    child.on('error', (err) => (error = err));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - started) / 1000;
      if (!live) {
        console.log(`\n${line}  (finished after ${seconds.toFixed(1)}s)`);
        process.stdout.write(Buffer.concat(chunks));
      }
      const passed = code === 0;
      if (!passed) console.error(`\n${name} failed (${error ? error.message : `exit ${code ?? signal}`})`);
      resolve({ name, passed, seconds });
    });
  });
}

/** A lane: its stages in order, stopping at the first failure. */
async function runLane(lane, live) {
  const out = [];
  for (const name of lane) {
    const r = await runStage(name, live);
    out.push(r);
    if (!r.passed) break;
  }
  return out;
}

const results = new Map();
const stepWall = [];
const runStarted = Date.now();
for (const lanes of STEPS) {
  const started = Date.now();
  // The lane with the longest stage streams (typecheck, vitest); the others print when each stage ends.
  const done = await Promise.all(lanes.map((lane, i) => runLane(lane, i === 0)));
  for (const r of done.flat()) results.set(r.name, r);
  stepWall.push((Date.now() - started) / 1000);
  if (done.flat().some((r) => !r.passed)) break;
}
const totalWall = (Date.now() - runStarted) / 1000;

console.log('\n=== summary');
STEPS.forEach((lanes, i) => {
  const sideBySide = lanes.length > 1;
  if (sideBySide) {
    const wall = stepWall[i] === undefined ? 'not run' : `${stepWall[i].toFixed(1)}s wall`;
    console.log(`  side by side: ${lanes.map((lane) => lane.join(' → ')).join('  ‖  ')}  (${wall})`);
  }
  for (const name of lanes.flat()) {
    const r = results.get(name);
    console.log(
      `  ${sideBySide ? '  ' : ''}${r ? (r.passed ? 'PASS' : 'FAIL') : 'not run'}  ${name}${r ? `  (${r.seconds.toFixed(1)}s)` : ''}`,
    );
  }
});
for (const r of results.values()) {
  if (!r.passed && STAGE[r.name].report) printFailedTests(r.name, join(SUMMARY_DIR, STAGE[r.name].report));
}
const passed = [...results.values()].filter((r) => r.passed).length;
const failed = results.size - passed;
console.log(`${passed} passed, ${failed} failed, ${totalWall.toFixed(1)}s in all`);
process.exit(failed === 0 && results.size === STAGES.length ? 0 : 1);

/** The failed tests of a stage, from its JSON report: CI shows only the tail of the output, so the names go here. */
function printFailedTests(name, file) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.log(`  ${name}: no report at ${file} (the stage ended before writing it); its output above says why`);
    return;
  }
  const failed = name === 'vitest' ? vitestFailures(report) : playwrightFailures(report);
  console.log(`  ${name}: ${failed.length} failed`);
  const MAX = 20;
  for (const f of failed.slice(0, MAX)) console.log(`    ✗ ${f.where} › ${f.title}\n        ${firstLine(f.message)}`);
  if (failed.length > MAX) console.log(`    … and ${failed.length - MAX} more (see the output above)`);
}

/** The first non-empty line of a message, without the reporters' colours (the summary is read as plain text). */
function firstLine(message = '') {
  const lines = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  return (lines.find((l) => l.trim() !== '') ?? '(no message)').trim().slice(0, 300);
}

function vitestFailures(report) {
  const out = [];
  for (const file of report.testResults ?? []) {
    const where = relative(process.cwd(), file.name);
    const tests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of tests) out.push({ where, title: t.fullName ?? t.title, message: t.failureMessages?.[0] });
    // A file can fail outside its tests (a hook, an import): vitest reports that on the file.
    if (tests.length === 0 && file.status === 'failed') out.push({ where, title: '(the file)', message: file.message });
  }
  return out;
}

function playwrightFailures(report) {
  const out = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      if (spec.ok) continue;
      const result = spec.tests
        ?.flatMap((t) => t.results ?? [])
        .find((r) => r.status !== 'passed' && r.status !== 'skipped');
      out.push({
        where: spec.file ?? suite.file,
        title: [...titles, spec.title].join(' › '),
        message: result?.error?.message,
      });
    }
    for (const child of suite.suites ?? [])
      walk(child, suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  for (const e of report.errors ?? []) out.push({ where: '(run)', title: '(outside the tests)', message: e.message });
  return out;
}
