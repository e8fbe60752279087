// A test database Tether can lose on purpose, on the dialect of the running vitest project (SPEC §4.4 tests):
//   PostgreSQL — Tether connects as its own role; `lose()` terminates that role's connections (pg_terminate_backend)
//     and refuses new ones (CONNECTION LIMIT 0: 53300), or with 'read-only' lets it reconnect only to transactions that
//     refuse writes (25006, what a standby or a demoted primary answers after a failover). The test's own connection
//     is a superuser's and keeps working, so it can look at the rows meanwhile.
//   SQLite — the file lives on its own small tmpfs; `lose()` fills that file system, so every write fails with
//     SQLITE_FULL (a real full disk; reads still work). Mounting needs root, as `npm test` runs on Debian.
// `restore()` gives the database back.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDb, type SqliteDb } from '../../src/server/db/drivers';
import { migrate } from '../../src/server/db/schema/migrate';
import type { Db } from '../../src/server/db/types';
import { freshDatabaseUrl, testDialect } from './db';
import { until } from './fixtures';

export type FaultKind = 'lost' | 'read-only';

export interface FaultableDatabase {
  /** The database as Tether sees it: build the services on this one. */
  db: Db;
  /** A connection the fault never touches, for looking at the rows (on SQLite, `db` itself: reads keep working). */
  admin: Db;
  /** Which fault kinds this dialect can stage. */
  kinds: FaultKind[];
  /**
   * Tether loses its database (PostgreSQL: connections cut and refused, or read-only; SQLite: the disk is full). On
   * SQLite call `prepare()` first, while no transaction is open.
   */
  lose(kind?: FaultKind): Promise<void>;
  restore(): Promise<void>;
  /**
   * PostgreSQL only: `pg_terminate_backend` on the connection running Tether's statement that writes `table` (and
   * matches `statement`, when other writers of the table may be waiting too: their connections are terminated as well),
   * while it runs. Writes to `table` are held (LOCK … IN SHARE MODE in a transaction of the test's own) until that
   * statement waits on the lock; `go` lets Tether send it. The connection is terminated, then the lock is let go:
   * every other statement, and every new connection, works as before — a connection lost mid-statement.
   */
  killMidStatement?(table: string, statement: RegExp | undefined, go: () => void): Promise<void>;
  /** PostgreSQL only: `pg_terminate_backend` on every connection Tether has now (new ones are accepted). */
  terminateConnections?(): Promise<void>;
  /**
   * Call before staging a case while the database is fine. SQLite: checkpoints the WAL to zero bytes, so the next
   * write after `lose()` must grow the file (a WAL restarted by a checkpoint would overwrite its own space instead).
   */
  prepare(): Promise<void>;
  close(): Promise<void>;
}

export async function faultableDatabase(): Promise<FaultableDatabase> {
  return testDialect() === 'postgres' ? faultablePostgres() : faultableSqlite();
}

async function faultablePostgres(): Promise<FaultableDatabase> {
  const url = await freshDatabaseUrl();
  const admin = openDb(url, { max: 2 });
  await migrate(admin);
  const role = `tether_${randomBytes(5).toString('hex')}`;
  await admin.exec(
    `CREATE ROLE ${role} LOGIN; GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}; GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}; GRANT CREATE ON SCHEMA public TO ${role};`,
  );
  const tetherUrl = new URL(url);
  tetherUrl.username = role;
  const db = openDb(tetherUrl.toString(), { max: 4, connectTimeoutMs: 1000 });
  const terminate = async (pids: number[]) => {
    if (pids.length === 0) return;
    const list = pids.join(','); // the driver sends arrays as JSON: a list of numbers as text instead
    await admin.query("SELECT pg_terminate_backend(pid) FROM unnest(string_to_array($1, ',')::int[]) AS pid", [list]);
    // Termination is a signal: wait until those backends are gone (new connections may already be open).
    await until(
      async () =>
        (await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = ANY(string_to_array($1, ',')::int[])", [list]))
          .length === 0,
      10_000,
      'the terminated connections to end',
    );
  };
  /**
   * Ends every connection of Tether's role that began before now. A connection still starting
   * when the role was altered passed the role's checks (its connection limit, its settings) already, yet shows in
   * pg_stat_activity only once started — one look could miss it, and it would go on working through the fault. So
   * look again until no such connection has shown for a while.
   */
  const cut = async () => {
    const since = (await admin.one<{ now: string }>('SELECT clock_timestamp()::text AS now'))!.now;
    let quietSince = Date.now();
    // Also gives the pool a moment to read the goodbyes (a statement sent on such a connection meanwhile would fail —
    // the very fault being staged, at the wrong moment).
    while (Date.now() - quietSince < 100) {
      const rows = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE usename = $1 AND backend_start <= $2::timestamptz',
        [role, since],
      );
      if (rows.length > 0) {
        await terminate(rows.map((r) => r.pid));
        quietSince = Date.now();
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  let current: FaultKind | undefined;
  return {
    db,
    admin,
    kinds: ['lost', 'read-only'],
    async lose(kind = 'lost') {
      await admin.exec(
        kind === 'lost'
          ? `ALTER ROLE ${role} CONNECTION LIMIT 0`
          : `ALTER ROLE ${role} SET default_transaction_read_only = on`,
      );
      await cut();
      current = kind;
    },
    async restore() {
      await admin.exec(
        `ALTER ROLE ${role} CONNECTION LIMIT -1; ALTER ROLE ${role} RESET default_transaction_read_only`,
      );
      // Connections made while read-only keep that setting: end them, the pool opens new ones.
      if (current === 'read-only') await cut();
      current = undefined;
    },
    async prepare() {},
    async terminateConnections() {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [role]);
    },
    async killMidStatement(table, statement, go) {
      await admin.transaction(async (tx) => {
        await tx.run(`LOCK TABLE ${table} IN SHARE MODE`);
        go();
        let pids: number[] = [];
        await until(
          async () => {
            // From another connection: inside a transaction pg_stat_activity is read once and then kept.
            // Tether's backends waiting for the table (the text of a long statement is cut at 1 kB: also match none).
            const waiting = await admin.query<{ pid: number; query: string }>(
              `SELECT a.pid, a.query FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid AND NOT l.granted
               WHERE a.usename = $1 AND l.relation = $2::regclass`,
              [role, table],
            );
            pids = waiting.filter((w) => !statement || statement.test(w.query)).map((w) => w.pid);
            // Another writer of the table waits first (the lease renewal): it holds the operation's row, which the
            // awaited statement's transaction needs before it reaches the table. Its connection goes as well.
            if (pids.length === 0) await terminate(waiting.map((w) => w.pid));
            return pids.length > 0;
          },
          10_000,
          `a statement ${statement ? `matching ${statement} ` : ''}to wait on ${table}`,
        );
        await terminate(pids);
      });
    },
    async close() {
      await db.close();
      await cut();
      await admin.exec(`DROP OWNED BY ${role}`).catch(() => {});
      await admin.close();
      const server = new pg.Client({ connectionString: new URL('/postgres', url).toString() });
      await server.connect();
      await server.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
      await server.end();
    },
  };
}

async function faultableSqlite(): Promise<FaultableDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-full-'));
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=32m', 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    throw new Error(
      `a full disk is staged on a tmpfs mount, which needs root (npm test runs as root on Debian): ${mounted.stderr || mounted.error}`,
    );
  }
  const db = openDb(`file:${join(dir, 'tether.db')}`);
  // The staged full disk bites a write only when the WAL has to grow: `prepare` truncates it. A background checkpoint
  // (drivers/sqlite-checkpointer.ts) lets the next commit start the WAL over in the space it already has, and that
  // write would go through — so this database checkpoints only on its committing thread, as SQLite does by default.
  await (db as SqliteDb).checkpointer?.stop();
  await migrate(db);
  const filler = join(dir, 'filler');
  let full = false;
  return {
    db,
    admin: db,
    kinds: ['lost'],
    async lose() {
      const fd = openSync(filler, 'w');
      const block = Buffer.alloc(64 * 1024);
      try {
        for (;;) writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      // The last bytes that still fit.
      try {
        for (;;) writeSync(fd, block, 0, 512);
      } catch {
        /* full */
      }
      closeSync(fd);
      full = true;
    },
    async restore() {
      if (full) unlinkSync(filler);
      full = false;
    },
    async prepare() {
      await db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    },
    async close() {
      await db.close();
      spawnSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
