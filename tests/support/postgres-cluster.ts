// Production PostgreSQL's shapes on one machine, for the topology tests (SPEC §12 "Production PostgreSQL"): a primary
// with a synchronous streaming standby, and PgBouncer in transaction pooling mode in front of a server. Everything
// runs as the `postgres` user from temp folders on loopback ports, from the Debian `postgresql` and `pgbouncer`
// packages (`npm test` installs them as root).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, initCluster, pgBin, pgNode, runAsPostgres, sharedTempDir } from './postgres-server';

export interface PgCluster {
  primaryPort: number;
  standbyPort: number;
  /** The maintenance database on the node that is primary now. */
  adminUrl(): string;
  /** `database` on both nodes, the primary first, in libpq's multi-host form. */
  url(database: string, attrs?: 'read-write' | 'primary' | 'any'): string;
  /** SIGKILL for the primary's postmaster and every process it started: the machine losing it, not a shutdown. */
  killPrimary(): void;
  /** `pg_ctl promote` on the standby: it becomes the primary (no synchronous standby of its own). */
  promoteStandby(): void;
  stop(): void;
}

async function query(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

/** The pids of `parent`'s child processes, from /proc. */
function childrenOf(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid …" — comm may hold spaces and parentheses: read after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) pids.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/**
 * A primary and a standby made from it with `pg_basebackup -R`, streaming; once the standby is connected the
 * primary waits for it on every commit (`synchronous_standby_names = '*'`, `synchronous_commit = on`), so a
 * commit acknowledged to a client is on the standby too.
 */
export async function startSyncCluster(): Promise<PgCluster> {
  const dir = sharedTempDir('tether-pgha-');
  const primaryData = join(dir, 'primary');
  const standbyData = join(dir, 'standby');
  initCluster(primaryData);
  const primary = pgNode(dir, primaryData, await freePort(), ['synchronous_commit=on']);
  primary.start();
  runAsPostgres(join(pgBin(), 'pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    standbyData,
    '-R',
    '-X',
    'stream',
    '-c',
    'fast',
  ]);
  const standby = pgNode(dir, standbyData, await freePort(), ['synchronous_commit=on']);
  standby.start();
  const at = (port: number, database = 'postgres') => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  // Only now: the standby's copy must not wait for a synchronous standby of its own once promoted.
  await query(at(primary.port), "ALTER SYSTEM SET synchronous_standby_names = '*'");
  await query(at(primary.port), 'SELECT pg_reload_conf()');
  const deadline = Date.now() + 30_000;
  while (
    (await query(at(primary.port), "SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync'")).rowCount === 0
  ) {
    if (Date.now() > deadline) throw new Error('the standby never became synchronous');
    await new Promise((r) => setTimeout(r, 50));
  }
  let primaryPort = primary.port;
  return {
    primaryPort: primary.port,
    standbyPort: standby.port,
    adminUrl: () => at(primaryPort),
    url: (database, attrs = 'read-write') =>
      `postgresql://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${database}?target_session_attrs=${attrs}`,
    killPrimary() {
      const postmaster = Number(readFileSync(join(primaryData, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const children = childrenOf(postmaster);
      // The postmaster first, so it restarts nothing; then its backends, walsender and helpers.
      for (const pid of [postmaster, ...children]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
    promoteStandby() {
      runAsPostgres(join(pgBin(), 'pg_ctl'), ['-D', standbyData, '-w', '-t', '60', 'promote']);
      primaryPort = standby.port;
    },
    stop() {
      standby.stop('immediate');
      primary.stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const PGBOUNCER = '/usr/sbin/pgbouncer';

export interface PgBouncer {
  port: number;
  /** `database` through the pooler, with Prisma's `pgbouncer=true`. */
  url(database: string): string;
  /** The daemon's process id (the bench counts its CPU). */
  pid(): number;
  stop(): void;
}

/**
 * PgBouncer (Debian's, 1.18: no prepared statements in transaction mode) in transaction pooling mode in front of the
 * server at `serverPort`, every database passed through, trust authentication for `postgres`; a generated ini in a
 * temp folder, run as `postgres` as a daemon and stopped by the pid it writes.
 */
export async function startPgBouncer(serverPort: number, options: { poolSize?: number } = {}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER))
    throw new Error(
      `PgBouncer not found at ${PGBOUNCER}: install the Debian package \`pgbouncer\` (npm test does this when run as root)`,
    );
  const dir = sharedTempDir('tether-pgbouncer-');
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(join(dir, 'userlist.txt'), '"postgres" ""\n');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=127.0.0.1 port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'userlist.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 1000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  runAsPostgres(PGBOUNCER, ['-d', ini]);
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}?pgbouncer=true`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      await query(`postgresql://postgres@127.0.0.1:${port}/postgres`, 'SELECT 1');
      break;
    } catch (err) {
      if (Date.now() > deadline)
        throw new Error(`PgBouncer did not start: ${String(err)}\n${readFileSync(join(dir, 'pgbouncer.log'), 'utf8')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const pid = () => Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());
  return {
    port,
    url,
    pid,
    stop() {
      try {
        process.kill(pid(), 'SIGTERM');
      } catch {
        // not running
      }
      spawnSync('sleep', ['0.1']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
