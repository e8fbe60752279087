// A throwaway PostgreSQL server for tests and benchmarks, from the Debian `postgresql` package.
// TEST_DATABASE_URL skips all of this and uses the given server instead.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PgServer {
  /** URL of the maintenance database; create per-test databases from it. */
  url: string;
  stop(): void;
  /** Stops and starts the server process on the same port and data (fault tests). */
  restart?(): void;
  halt?(): void;
  resume?(): void;
}

/** The Debian package's server binaries (newest version installed); the bench finds `pgbench` there too. */
export function pgBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(base, v, 'bin', 'postgres'))) return join(base, v, 'bin');
  throw new Error(
    'PostgreSQL server binaries not found under /usr/lib/postgresql. Install the Debian package `postgresql` ' +
      '(npm test does this when run as root) or set TEST_DATABASE_URL.',
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface StartPostgresOptions {
  /**
   * Keep `synchronous_commit` on. The throwaway server trades durability for speed (fsync and synchronous commit
   * off), which is fine until a test crashes it on purpose: with asynchronous commit, `halt()` (an immediate
   * shutdown, i.e. a crash) can lose transactions the server already acknowledged — a lost acknowledged create
   * would look like a broken identity promise. Fault tests that halt the server set this.
   */
  durableCommits?: boolean;
  /**
   * Keep the data folder on disk (the bench: its reference runs were measured there). Otherwise it is in memory
   * (`/dev/shm`, where the machine has it): a test run creates a database per test file, some 8 MB each, and
   * removing the gigabyte or so of them from disk at the end of the run took the disk half a minute.
   */
  onDisk?: boolean;
}

/** `cmd args` as the `postgres` system user when we are root (PostgreSQL and PgBouncer refuse to run as root). */
export function asPostgres(cmd: string, args: string[]): readonly [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

/** Runs `cmd args` (as `postgres` when root) to completion; throws with its output when it fails. */
export function runAsPostgres(cmd: string, args: string[]): void {
  const [c, a] = asPostgres(cmd, args);
  const r = spawnSync(c, a, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
}

/** A run's test databases take a gigabyte or two: memory-backed space smaller than this is not used. */
const MEMORY_DIR_MIN_FREE = 4 * 1024 ** 3;

/**
 * Memory-backed scratch space where the machine has enough of it (Linux's `/dev/shm`; a container's is often 64 MB);
 * otherwise the temp folder.
 */
const MEMORY_DIR = (() => {
  if (!existsSync('/dev/shm')) return tmpdir();
  const fs = statfsSync('/dev/shm');
  return fs.bavail * fs.bsize >= MEMORY_DIR_MIN_FREE ? '/dev/shm' : tmpdir();
})();

/** A temp folder the `postgres` user can write in: in memory unless `onDisk` (see StartPostgresOptions). */
export function sharedTempDir(prefix: string, options: { onDisk?: boolean } = {}): string {
  const dir = mkdtempSync(join(options.onDisk ? tmpdir() : MEMORY_DIR, prefix));
  chmodSync(dir, 0o777);
  return dir;
}

/** One PostgreSQL server process on a loopback port, its data folder under `dir` (the cluster is made by the caller). */
export function pgNode(dir: string, data: string, port: number, settings: string[] = []) {
  const bin = pgBin();
  // fsync off survives a process crash (the OS keeps the pages); asynchronous commit does not (see above).
  const opts = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=400`,
    ...settings.map((s) => `-c ${s}`),
  ].join(' ');
  return {
    port,
    data,
    start: () =>
      runAsPostgres(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-o',
        opts,
        '-w',
        '-t',
        '60',
        '-l',
        join(dir, `log-${port}`),
        'start',
      ]),
    stop: (mode = 'fast') => {
      const [c, a] = asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
      spawnSync(c, a, { encoding: 'utf8' });
    },
  };
}

/** initdb as the tests want it: trust on loopback (replication included), UTF-8, C locale, no fsync. */
export function initCluster(data: string): void {
  runAsPostgres(join(pgBin(), 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
    '-N',
  ]);
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PgServer> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop() {} };
  const dir = sharedTempDir('tether-pg-', options);
  const data = join(dir, 'data');
  initCluster(data);
  const node = pgNode(dir, data, await freePort(), [`synchronous_commit=${options.durableCommits ? 'on' : 'off'}`]);
  const { port } = node;
  const start = node.start;
  const stop = node.stop;
  start();
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      stop('immediate');
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    },
    restart() {
      stop('immediate');
      start();
    },
    halt() {
      stop('immediate');
    },
    resume() {
      start();
    },
  };
}

/** Creates a database on the server (empty, or a copy of `template`) and returns its URL. */
export async function createDatabase(serverUrl: string, name: string, template?: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    // PostgreSQL 15+ copies template1 through the WAL by default (WAL_LOG): with the throwaway server's fsync off,
    // copying its files (FILE_COPY) costs the server less than half the CPU and writes half the bytes.
    const version = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    const strategy = Number(version.rows[0]?.v) >= 150000 ? ' STRATEGY FILE_COPY' : '';
    await client.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}${strategy}`);
  } finally {
    await client.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
