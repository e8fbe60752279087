// A throwaway PostgreSQL server for tests and benchmarks, from the Debian `postgresql` package.
// TEST_DATABASE_URL skips all of this and uses the given server instead.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
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
}

export async function startPostgres(options: StartPostgresOptions = {}): Promise<PgServer> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop() {} };
  const bin = pgBin();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'tether-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  // PostgreSQL refuses to run as root: run it as the `postgres` system user the package creates.
  const as = (cmd: string, args: string[]) =>
    root ? (['runuser', ['-u', 'postgres', '--', cmd, ...args]] as const) : ([cmd, args] as const);
  const run = (cmd: string, args: string[]) => {
    const [c, a] = as(cmd, args);
    const r = spawnSync(c, a, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '-N']);
  // fsync off survives a process crash (the OS keeps the pages); asynchronous commit does not (see above).
  const commit = options.durableCommits ? 'on' : 'off';
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=${commit} -c full_page_writes=off -c max_connections=400`;
  const start = () => run(join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-w', '-t', '60', '-l', join(dir, 'log'), 'start']);
  const stop = (mode = 'fast') => {
    const [c, a] = as(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
    spawnSync(c, a, { encoding: 'utf8' });
  };
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

/** Creates an empty database on the server and returns its URL. */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name}"`);
  } finally {
    await client.end();
  }
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
