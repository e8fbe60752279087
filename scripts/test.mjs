#!/usr/bin/env node
// `npm test`: the whole suite, in order, stopping at the first failure.
//   typecheck → lint → client build → openapi build → server build → next build → vitest (unit, sqlite, postgres) → playwright (built app, Chromium)
// Flags: --no-e2e (skip Playwright), --e2e-only (build + Playwright).
// Prerequisites are checked first and never silently skipped: PostgreSQL server binaries and PgBouncer (for the
// postgres project, unless TEST_DATABASE_URL is given) and Debian's Chromium (for Playwright). As root on Debian they
// are installed with apt; anywhere else a missing one fails with the command to run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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
const STAGES = [
  { name: 'typecheck', cmd: bin('tsc'), args: ['--noEmit'], core: true },
  { name: 'lint', cmd: bin('eslint'), args: ['.'], core: true },
  // The builds come before vitest: tests type-check and run a client project against the built `tether/client`, and a
  // few integration tests check the built app's page responses.
  { name: 'client build', cmd: process.execPath, args: ['scripts/build-client.mjs'], core: true },
  // dist/openapi.json, as `npm run build` writes it; the document itself is checked by the vitest stage.
  { name: 'openapi build', cmd: bin('tsx'), args: ['scripts/build-openapi.ts'], core: true },
  // dist/server/main.mjs, the server `npm start` serves; the built-app tests, Playwright and the bench start it.
  { name: 'server build', cmd: process.execPath, args: ['scripts/build-server.mjs'], core: true, e2e: true },
  { name: 'next build', cmd: bin('next'), args: ['build'], e2e: true },
  { name: 'vitest', cmd: bin('vitest'), args: ['run'], core: true, needs: ['postgres'] },
  { name: 'playwright', cmd: bin('playwright'), args: ['test'], e2e: true, needs: ['chromium'] },
].filter((s) => (e2eOnly ? s.e2e : s.core || (s.e2e && withE2e) || s.name === 'next build'));

// ---- prerequisites ---------------------------------------------------------------------------------

const CHROMIUM = '/usr/bin/chromium';
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
if (needed.has('chromium') && !existsSync(CHROMIUM)) missing.push('chromium');

if (missing.length > 0) {
  const isRoot = process.getuid?.() === 0;
  const isDebian = existsSync('/etc/debian_version');
  if (!isRoot || !isDebian) {
    console.error(
      `npm test needs the Debian package(s) ${missing.join(', ')}` +
        (missing.includes('postgresql') ? ' (PostgreSQL server binaries under /usr/lib/postgresql/*/bin, or set TEST_DATABASE_URL)' : '') +
        (missing.includes('pgbouncer') ? ` (PgBouncer at ${PGBOUNCER})` : '') +
        (missing.includes('chromium') ? ` (Chromium at ${CHROMIUM})` : '') +
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
  const ok =
    apt(['update']) &&
    apt(['install', '-y', '-o', 'Dpkg::Options::=--force-confold', ...missing]);
  if (
    !ok ||
    (missing.includes('chromium') && !existsSync(CHROMIUM)) ||
    (missing.includes('postgresql') && !postgresBinaries()) ||
    (missing.includes('pgbouncer') && !existsSync(PGBOUNCER))
  ) {
    console.error(`apt-get could not install ${missing.join(', ')}; install them and re-run npm test.`);
    process.exit(1);
  }
}

// ---- stages ----------------------------------------------------------------------------------------

const results = [];
for (const stage of STAGES) {
  console.log(`\n=== ${stage.name}: ${[stage.cmd, ...stage.args].join(' ')}`);
  const started = Date.now();
  const r = spawnSync(stage.cmd, stage.args, { stdio: 'inherit', env: process.env });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const passed = r.status === 0;
  results.push({ name: stage.name, passed, seconds });
  if (!passed) {
    console.error(`\n${stage.name} failed (${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`);
    break;
  }
}

console.log('\n=== summary');
for (const stage of STAGES) {
  const r = results.find((x) => x.name === stage.name);
  console.log(`  ${r ? (r.passed ? 'PASS' : 'FAIL') : 'not run'}  ${stage.name}${r ? `  (${r.seconds}s)` : ''}`);
}
const passed = results.filter((r) => r.passed).length;
const failed = results.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length === STAGES.length ? 0 : 1);
