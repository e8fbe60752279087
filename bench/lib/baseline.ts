// The database's own limit, measured in the same run: the raw driver doing the single-row lookup and the
// single-row insert Tether's Found and Created paths are built around. Same pool size and the same named
// (prepared) statements Tether's pg dialect uses, so the only difference left is Tether itself.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { SQLITE_BY_EXTERNAL_ID } from '../../src/server/db/dialect/sqlite/tasks';
import { TASK_COLUMNS } from '../../src/server/db/repositories/tasks';
import { loadConfig } from '../../src/server/config';
import { randomInt } from './measure';

const LOOKUP = `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = $1 AND external_id = $2`;
const INSERT = `INSERT INTO tasks (${TASK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`;

export interface Baseline {
  lookup(workspaceId: string, held: number): Promise<void>;
  insert(ws: { id: string; stepId: string; prefix: string }): Promise<void>;
  close(): Promise<void>;
}

let number = 1_000_000_000;

function insertParams(ws: { id: string; stepId: string; prefix: string }) {
  const n = ++number;
  const at = new Date().toISOString();
  return [
    randomUUID(),
    ws.id,
    n,
    `${ws.prefix}-${n}`,
    'raw task',
    null,
    ws.stepId,
    null,
    null,
    at,
    at,
    0,
    'completed',
    `raw-${n}`,
    at,
  ];
}

export function pgBaseline(url: string): Baseline {
  const pool = new pg.Pool({ connectionString: url, max: loadConfig().postgres.poolSize });
  return {
    async lookup(workspaceId, held) {
      const r = await pool.query({
        name: 'raw_lookup',
        text: LOOKUP,
        values: [workspaceId, `ext-${1 + randomInt(held)}`],
      });
      if (r.rowCount !== 1) throw new Error('raw lookup missed');
    },
    async insert(ws) {
      const r = await pool.query({ name: 'raw_insert', text: INSERT, values: insertParams(ws) });
      if (r.rowCount !== 1) throw new Error('raw insert wrote nothing');
    },
    close: () => pool.end(),
  };
}

/** better-sqlite3 with Tether's pragmas, and `$n` statements prepared as SQLite's `?` ones. */
export function openSqlite(file: string): { db: Database.Database; prepare(sql: string): Database.Statement } {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  return { db, prepare: (sql) => db.prepare(sql.replace(/\$\d+/g, '?')) };
}

/** better-sqlite3 directly: synchronous, so "concurrency" is one; the loop still yields between calls. */
export function sqliteBaseline(file: string): Baseline {
  const { db, prepare } = openSqlite(file);
  // The statement Tether's SQLite dialect runs (`= +$n`, planned once: db/dialect/sqlite/tasks.ts), so the raw series
  // does not pay the re-planning Tether no longer pays.
  const lookup = prepare(SQLITE_BY_EXTERNAL_ID);
  const insert = prepare(INSERT);
  return {
    async lookup(workspaceId, held) {
      if (!lookup.get(workspaceId, `ext-${1 + randomInt(held)}`)) throw new Error('raw lookup missed');
    },
    async insert(ws) {
      if (insert.run(...insertParams(ws)).changes !== 1) throw new Error('raw insert wrote nothing');
    },
    async close() {
      db.close();
    },
  };
}
