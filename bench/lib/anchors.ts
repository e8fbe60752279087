// The physical anchors: what the database does with the simplest possible statements, measured in the same run, so
// every series can be read against the machine's own limit and not only against a raw statement on Tether's schema (the
// raw series in baseline.ts insert into `tasks`, with its five indexes). The anchors are pgbench's: a single-row
// primary-key lookup in `pgbench_accounts` (100,000 rows, pgbench's scale 1) and a single-row insert into
// `pgbench_history` (no index), with pgbench's own table definitions —
//   - through the raw driver, with the same pool size and named (prepared) statements as Tether's dialect
//     (PostgreSQL), or better-sqlite3's prepared statements (SQLite);
//   - and, when Debian's `pgbench` binary is installed next to the server, pgbench itself running the same two
//     statements (`-M prepared`, one connection per operation in flight) — the C client's ceiling.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/server/config';
import type { Db } from '../../src/server/db/types';
import { pgBin } from '../../tests/support/postgres-server';
import { openSqlite } from './baseline';
import type { LoadResult } from './measure';
import { randomInt } from './measure';

export const ACCOUNTS = 100_000;

const LOOKUP = 'SELECT abalance FROM pgbench_accounts WHERE aid = $1';
const INSERT = 'INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, $5)';

/** pgbench's scale-1 tables (its own DDL, `pgbench -i -s 1`), filled server-side. */
export async function createAnchorTables(db: Db): Promise<void> {
  const pgsql = db.dialect === 'postgres';
  const series = pgsql
    ? `SELECT g, 1, 0, '' FROM generate_series(1, ${ACCOUNTS}) g`
    : `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${ACCOUNTS}) SELECT g, 1, 0, '' FROM s`;
  await db.exec(`
    CREATE TABLE pgbench_accounts (aid integer NOT NULL PRIMARY KEY, bid integer, abalance integer, filler char(84));
    CREATE TABLE pgbench_history (tid integer, bid integer, aid integer, delta integer, mtime timestamp, filler char(22));
    INSERT INTO pgbench_accounts (aid, bid, abalance, filler) ${series};
    ANALYZE;
  `);
}

export interface Anchor {
  lookup(): Promise<void>;
  insert(): Promise<void>;
  close(): Promise<void>;
}

const row = () => [1 + randomInt(10), 1, 1 + randomInt(ACCOUNTS), randomInt(10_001) - 5_000, new Date().toISOString()];

export function pgAnchor(url: string): Anchor {
  const pool = new pg.Pool({ connectionString: url, max: loadConfig().postgres.poolSize });
  return {
    async lookup() {
      const r = await pool.query({ name: 'anchor_lookup', text: LOOKUP, values: [1 + randomInt(ACCOUNTS)] });
      if (r.rowCount !== 1) throw new Error('anchor lookup missed');
    },
    async insert() {
      await pool.query({ name: 'anchor_insert', text: INSERT, values: row() });
    },
    close: () => pool.end(),
  };
}

export function sqliteAnchor(file: string): Anchor {
  const { db, prepare } = openSqlite(file);
  const lookup = prepare(LOOKUP);
  const insert = prepare(INSERT);
  return {
    async lookup() {
      if (!lookup.get(1 + randomInt(ACCOUNTS))) throw new Error('anchor lookup missed');
    },
    async insert() {
      insert.run(...row());
    },
    async close() {
      db.close();
    },
  };
}

/** The pgbench binary of the server's own installation, if the package ships it. */
export function findPgbench(): string | undefined {
  try {
    const bin = join(pgBin(), 'pgbench');
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

const SCRIPTS = {
  lookup: `\\set aid random(1, ${ACCOUNTS})\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n`,
  insert: `\\set aid random(1, ${ACCOUNTS})\n\\set tid random(1, 10)\n\\set delta random(-5000, 5000)\nINSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, 1, :aid, :delta, CURRENT_TIMESTAMP);\n`,
};

/**
 * pgbench running one of the two anchor statements for `seconds` with `clients` connections (`-M prepared`, no
 * vacuum). pgbench reports only an average latency: it is given as p50, and p99 is left unmeasured.
 */
export async function runPgbench(
  bin: string,
  url: string,
  kind: 'lookup' | 'insert',
  clients: number,
  threads: number,
  seconds: number,
): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-pgbench-'));
  const script = join(dir, `${kind}.sql`);
  writeFileSync(script, SCRIPTS[kind]);
  const u = new URL(url);
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(clients),
    '-j',
    String(threads),
    '-T',
    String(Math.max(1, Math.round(seconds))),
    '-f',
    script,
  ];
  args.push('-h', u.hostname, '-p', u.port, '-U', decodeURIComponent(u.username), u.pathname.slice(1));
  try {
    const out = await new Promise<string>((ok, fail) => {
      const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d) => (text += String(d)));
      child.stderr.on('data', (d) => (text += String(d)));
      child.on('error', fail);
      child.on('exit', (code) =>
        code === 0 ? ok(text) : fail(new Error(`pgbench exited ${code}: ${text.slice(-500)}`)),
      );
    });
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1] ?? NaN);
    const done = Number(/number of transactions actually processed: (\d+)/.exec(out)?.[1] ?? NaN);
    const failed = Number(/number of failed transactions: (\d+)/.exec(out)?.[1] ?? 0);
    const avg = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1] ?? NaN);
    return { opsPerSec: tps, p50Ms: avg, p99Ms: NaN, ops: done, errors: failed };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
