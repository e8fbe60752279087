// The BUILT app in production mode, as an operator runs it (`npm start`): `next build` once (when .next is missing),
// the server bundle (scripts/build-server.mjs: rebuilt once per process that starts one, so it is never older than
// the sources), then `NODE_ENV=production node --max-old-space-size=512 dist/server/main.mjs`
// with DATABASE_URL and PORT. The child's pid is the server itself (its /proc/<pid>/status VmHWM is the server's peak RSS).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '../../tests/support/postgres-server';

export const ROOT = resolve(import.meta.dirname, '../..');
/** What `output()` keeps of a server's stdout and stderr (the start-up lines, and what a test's requests print). */
const MAX_OUTPUT = 4 * 1024 * 1024;

export function ensureBuilt(log: (line: string) => void): void {
  if (existsSync(resolve(ROOT, '.next/BUILD_ID'))) return;
  log('bench: .next is missing, running `next build` once…');
  const r = spawnSync('npx', ['next', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('next build failed');
}

/** The bundle `npm start` serves, built from the current sources the first time this process starts a server. */
export const SERVER_BUNDLE = 'dist/server/main.mjs';
let bundled = false;
function ensureBundle(): void {
  if (bundled) return;
  const r = spawnSync(process.execPath, ['scripts/build-server.mjs', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('the server bundle did not build (node scripts/build-server.mjs)');
  bundled = true;
}

export interface AppProcess {
  url: string;
  pid: number;
  /** What the server printed so far (stdout and stderr), its first MAX_OUTPUT characters. */
  output(): string;
  /** Peak resident set size so far, in MB (VmHWM). */
  peakRssMb(): number;
  stop(): Promise<void>;
  /** Closes our end of the server's stdout and stderr, as a log reader that went away would (tests). */
  closeOutput(): void;
  /** Synchronous SIGKILL, for the bench's own signal handler. */
  kill(): void;
}

export interface StartAppOptions {
  profileDir?: string;
  /** Extra arguments for the server (e.g. `--test-hooks`). */
  args?: string[];
  /** Environment changes; `undefined` removes a variable (e.g. NODE_ENV, to start the way `npm run serve` does). */
  env?: Record<string, string | undefined>;
}

/** Server processes still running: killed when this process exits, however it exits (a bench that throws halfway, a
 *  test file that fails in beforeAll), so none is left holding its port and database connections. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export async function startApp(databaseUrl: string, opts: StartAppOptions = {}): Promise<AppProcess> {
  ensureBundle();
  return spawnServer([SERVER_BUNDLE, ...(opts.args ?? [])], databaseUrl, /Tether listening on/, {
    ...opts,
    env: {
      // One bench token sends thousands of requests a second: the per-actor limiter (default 1000/s) would
      // turn the measurement into a measurement of 429s. Everything else is the production configuration.
      TETHER_RATE_LIMIT_PER_SEC: '0',
      ...opts.env,
    },
  });
}

/** The hand-written endpoint's bundle, built like Tether's (scripts/bundle-options.mjs), so neither runs under tsx. */
const HAND_BUNDLE = 'dist/bench/hand-written.mjs';
let handBundled = false;
function ensureHandBundle(): void {
  if (handBundled) return;
  const script = `import { build } from 'esbuild'; import { bundleOptions } from './scripts/bundle-options.mjs';
    await build(bundleOptions('bench/hand-written-server.ts', '${HAND_BUNDLE}'));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`the hand-written endpoint did not build (${HAND_BUNDLE})`);
  handBundled = true;
}

/** The hand-written endpoint (bench/lib/hand-written.ts) in a process of its own, started like Tether's servers. */
export function startHandWritten(
  databaseUrl: string,
  serves: { tokenSha256: string; workspace: { id: string; stepId: string; prefix: string }; poolSize: number },
  opts: Pick<StartAppOptions, 'profileDir'> = {},
): Promise<AppProcess> {
  ensureHandBundle();
  return spawnServer([HAND_BUNDLE], databaseUrl, /hand-written listening on/, {
    ...opts,
    env: {
      BENCH_TOKEN_SHA256: serves.tokenSha256,
      BENCH_WORKSPACE: JSON.stringify(serves.workspace),
      BENCH_POOL_SIZE: String(serves.poolSize),
    },
  });
}

async function spawnServer(
  entry: string[],
  databaseUrl: string,
  listening: RegExp,
  opts: StartAppOptions,
): Promise<AppProcess> {
  const port = await freePort();
  const flags = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  if (opts.profileDir) mkdirSync(opts.profileDir, { recursive: true });
  // The flags `npm start` uses (package.json; docs/BENCHMARKS.md explains the heap cap).
  const env: Record<string, string | undefined> = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...opts.env,
  };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const child: ChildProcess = spawn(process.execPath, [...flags, '--max-old-space-size=512', ...entry], {
    cwd: ROOT,
    env: env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  // Kept for start-up checks and error messages, up to MAX_OUTPUT: under load the server writes one line per request,
  // and the bench must not spend its CPU — which the HTTP series share with the server — holding them.
  let output = '';
  const keep = (d: Buffer) => {
    if (output.length < MAX_OUTPUT) output += String(d);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`server did not start in 90 s:\n${output}`)), 90_000);
    // Only until it has started: scanning everything printed so far on every chunk costs the bench more with every
    // request line (it was ~400 µs of the bench's CPU per REST Found in the quick mode).
    const check = () => {
      if (listening.test(output)) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        if (/NOT READY/.test(output)) fail(new Error(`server is not ready:\n${output}`));
        else ok();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code}):\n${output}`));
    });
  });
  const pid = child.pid!;
  return {
    url: `http://127.0.0.1:${port}`,
    pid,
    output: () => output,
    peakRssMb() {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : NaN;
    },
    closeOutput() {
      child.stdout!.destroy();
      child.stderr!.destroy();
    },
    kill: () => void child.kill('SIGKILL'),
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.removeAllListeners('exit');
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}
