// Start real server processes for multi-process tests and stop them afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, version as esbuildVersion } from 'esbuild';
import { bundleOptions } from '../../scripts/bundle-options.mjs';
import { afterAll, beforeAll } from 'vitest';
import { openDb } from '../../src/server/db/drivers';
import { migrate } from '../../src/server/db/schema/migrate';
import type { Db } from '../../src/server/db/types';
import { freshDatabaseUrl } from './db';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

const ROOT = resolve(import.meta.dirname, '../..');

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in the project folder to its end, `env` over this process's environment, `input` on stdin. */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  input = '',
): Promise<CommandRun> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin!.end(input);
  });
}

const bundles = new Map<string, Promise<string>>();

/**
 * Packages a self-contained bundle still loads from node_modules: native add-ons, and the query compilers the Prisma
 * runtime imports by name at run time.
 */
const NOT_BUNDLED = ['better-sqlite3', 'pg-native', '@prisma/client/runtime/query_compiler_*'];

/**
 * Node's flags for the short-lived processes the tests start from these bundles (the CLI, servers, the crash-matrix
 * child). `--liftoff-only`: V8 compiles WebAssembly — Prisma's query compiler, the first time a process takes a cold
 * path — with its baseline compiler only. The optimising tier pays off in a long-lived server, not in a process that
 * runs a few queries: it cost such a process ~0.6 s of CPU, some 40% of a `tether workspace list`. The flag
 * changes how fast the code runs, not what it does.
 */
export const CHILD_NODE_FLAGS = ['--liftoff-only'];

const DIST_TEST = resolve(ROOT, 'dist/test');

/**
 * `entry` (a TypeScript file of this project) bundled from the sources, again only when they change (builtFrom): the
 * tests start the CLI, the crash-matrix child and server processes dozens of times, and under tsx every start compiles
 * the sources again.
 * The bundle is split: what the sources import with `import()` (Prisma Client and its runtime, db/prisma/) is a chunk
 * of its own, loaded only by a process that takes a cold path — as under tsx; in one file, the runtime's static imports
 * would load at every start. Packages stay in node_modules as in the built server (scripts/build-server.mjs), unless
 * `withPackages`: a program started many times (the CLI, the crash-matrix child) loads faster with its packages in the
 * bundle than as the hundreds of files they are in node_modules.
 * Written two levels below the project, in dist/test/ (scripts/bundle-options.mjs): the entry under one name per entry
 * and options, its chunks under names that are hashes of their contents. Each file is written aside and renamed into
 * place, the entry last, so a child that starts meanwhile reads whole files.
 */
export function bundled(entry: string, options: { withPackages?: boolean } = {}): Promise<string> {
  const key = `${entry}${options.withPackages ? '+packages' : ''}`;
  let out = bundles.get(key);
  if (!out) {
    const name = key.replace(/[^a-z0-9]+/gi, '-');
    const opts = bundleOptions(entry, resolve(DIST_TEST, `${name}.mjs`));
    delete opts.outfile;
    Object.assign(opts, {
      outdir: DIST_TEST,
      entryNames: name,
      chunkNames: 'chunk-[hash]',
      outExtension: { '.js': '.mjs' },
      splitting: true,
      write: false,
    });
    if (options.withPackages) {
      delete opts.packages;
      opts.external = NOT_BUNDLED;
    }
    const outfile = resolve(DIST_TEST, `${name}.mjs`);
    const stampFile = resolve(DIST_TEST, `${name}.inputs.json`);
    const built = JSON.stringify({ esbuild: esbuildVersion, opts });
    out = builtFrom(stampFile, outfile, built)
      ? Promise.resolve(outfile)
      : build({ ...opts, absWorkingDir: ROOT, metafile: true }).then(({ outputFiles = [], metafile }) => {
          mkdirSync(DIST_TEST, { recursive: true });
          const files = [
            ...outputFiles.filter((f) => f.path !== outfile),
            ...outputFiles.filter((f) => f.path === outfile),
          ];
          for (const file of files) writeAside(file.path, file.contents);
          // Last, after the entry: what it was built from (see builtFrom).
          // The tsconfig (paths, JSX) and package.json (imports, type) steer how the sources are read.
          const inputs = [...Object.keys(metafile?.inputs ?? {}), 'tsconfig.json', 'package.json']
            .map((p) => resolve(ROOT, p))
            .filter((p) => existsSync(p))
            .map((p) => [p, ...stamp(p)]);
          writeAside(stampFile, JSON.stringify({ built, inputs }));
          return outfile;
        });
    bundles.set(key, out);
  }
  return out;
}

function writeAside(path: string, contents: string | Uint8Array): void {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, contents);
  renameSync(aside, path);
}

function stamp(path: string): [number, number] {
  const st = statSync(path);
  return [st.size, st.mtimeMs];
}

/**
 * Whether `outfile` is still the bundle these options make of the files as they are now: the test processes of one
 * run (two per project) and the next run need the same three bundles, and each build cost a second and a half of CPU.
 * It is when another process built it with the same options and esbuild, and every file it read (esbuild's metafile:
 * sources and, with `withPackages`, the packages' files) still has the size and modification time it had then.
 */
function builtFrom(stampFile: string, outfile: string, built: string): boolean {
  try {
    if (!existsSync(outfile)) return false;
    const recorded = JSON.parse(readFileSync(stampFile, 'utf8')) as {
      built: string;
      inputs: [string, number, number][];
    };
    if (recorded.built !== built) return false;
    return recorded.inputs.every(([path, size, mtime]) => {
      if (!existsSync(path)) return false;
      const [s, m] = stamp(path);
      return s === size && m === mtime;
    });
  } catch {
    return false;
  }
}

/** The admin CLI from the sources (src/cli/main.ts, bundled) as a child process; `env` names the database. */
export async function runTether(args: string[], env: Record<string, string>, input = ''): Promise<CommandRun> {
  const cli = await bundled('src/cli/main.ts', { withPackages: true });
  return runCommand(process.execPath, [...CHILD_NODE_FLAGS, cli, ...args], env, input);
}

export async function startServerProcess(
  env: Record<string, string>,
  entry = 'tests/support/api-server.ts',
): Promise<ServerProcess> {
  // The entry's bundle is imported rather than run: api-server.ts imports src/server/main.ts, which starts a server of
  // its own when its module is the program — and in one bundle, its module is the bundle.
  const bundle = await bundled(entry);
  const child = spawn(
    process.execPath,
    [...CHILD_NODE_FLAGS, '--input-type=module', '-e', `await import(${JSON.stringify(bundle)});`],
    {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const url = await new Promise<string>((resolvePromise, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server process did not start: ${stderr}`)), 60_000);
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /READY (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server process exited (${code}): ${stderr}`));
    });
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      }),
  };
}

export interface ProcessWorld {
  url: string;
  /** This test's own connection to the database the servers share. */
  db: Db;
  servers: ServerProcess[];
}

/**
 * The multi-process set-up: a fresh, migrated database and `count` server processes on it (rate limit off),
 * stopped and closed after the file. `use` runs once everything is up (seed, or run a workload).
 */
export function useServerProcesses(
  use: (world: ProcessWorld) => void | Promise<void>,
  options: { env?: Record<string, string>; count?: number; timeoutMs?: number } = {},
): void {
  let world: ProcessWorld | undefined;
  beforeAll(async () => {
    const url = await freshDatabaseUrl();
    const db = openDb(url);
    world = { url, db, servers: [] };
    await migrate(db);
    const env = { DATABASE_URL: url, TETHER_RATE_LIMIT_PER_SEC: '0', ...options.env };
    world.servers = await Promise.all(Array.from({ length: options.count ?? 2 }, () => startServerProcess(env)));
    await use(world);
  }, options.timeoutMs ?? 120_000);
  afterAll(async () => {
    await Promise.all((world?.servers ?? []).map((s) => s.stop()));
    await world?.db.close();
  });
}
