// SPEC §12: our own migration runner. Numbered SQL files per dialect, each applied in its own
// transaction, recorded with a checksum, guarded against two processes migrating at once.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Db } from './types';
import { PostgresDb, SqliteDb } from './dialect';
import { needsSqliteRebuild, rebuildSqliteTasksTable, type RebuildResult } from './sqlite-rebuild';

export interface MigrationFile {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  version: number;
  /**
   * SQLite only: set when `tasks` failed attestation for a collation reason and was rebuilt (SPEC §12).
   * A failed rebuild does not throw — the server still starts, not ready, with the reason on /api/health.
   */
  rebuild?: { ok: true; result: RebuildResult } | { ok: false; error: string };
}

export class MigrationError extends Error {}

export const MIGRATIONS_DIR = resolve(import.meta.dirname, '../../../migrations');
const LOCK_KEY = 0x7e7e_0001; // pg_advisory_lock key for "tether migrations"

export function readMigrations(dialect: Db['dialect'], dir = MIGRATIONS_DIR): MigrationFile[] {
  const folder = join(dir, dialect);
  return readdirSync(folder)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(folder, name), 'utf8');
      return { version: Number(name.slice(0, 4)), name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

const HISTORY = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at text NOT NULL)`;

interface Applied {
  version: number;
  name: string;
  checksum: string;
}

function check(applied: Applied[], files: MigrationFile[]): void {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const a of applied) {
    const f = byVersion.get(Number(a.version));
    if (!f) throw new MigrationError(`migration ${a.name} is recorded as applied but its file is missing`);
    if (f.checksum !== a.checksum) {
      throw new MigrationError(
        `migration ${a.name} was edited after it was applied (recorded checksum ${a.checksum.slice(0, 12)}, file ${f.checksum.slice(0, 12)}); add a new migration instead`,
      );
    }
  }
}

/** Applies every pending migration. Safe to run concurrently and repeatedly (a re-run is a no-op). */
export async function migrate(db: Db, files = readMigrations(db.dialect)): Promise<MigrationResult> {
  return db instanceof PostgresDb ? migratePostgres(db, files) : migrateSqlite(db as SqliteDb, files);
}

async function migrateSqlite(db: SqliteDb, files: MigrationFile[]): Promise<MigrationResult> {
  await db.exec(HISTORY);
  const applied: string[] = [];
  for (const file of files) {
    // BEGIN IMMEDIATE takes SQLite's write lock: a second process waits, then sees the row and skips.
    const done = await db.transaction(async (tx) => {
      const rows = await tx.query<Applied>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
      check(rows, files);
      if (rows.some((r) => Number(r.version) === file.version)) return false;
      try {
        db.raw.exec(file.sql);
      } catch (err) {
        // Thrown inside the transaction: every statement of the file rolls back with it.
        throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`);
      }
      await tx.run('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [
        file.version,
        file.name,
        file.checksum,
        new Date().toISOString(),
      ]);
      return true;
    });
    if (done) applied.push(file.name);
  }
  const rows = await db.query<Applied>('SELECT version, name, checksum FROM schema_migrations ORDER BY version');
  check(rows, files);
  return { applied, version: currentVersion(rows), ...(await repairSqliteCollation(db)) };
}

/** SPEC §12: a `tasks` table with the wrong collation (e.g. from an old build) is rebuilt, all or nothing. */
async function repairSqliteCollation(db: SqliteDb): Promise<Pick<MigrationResult, 'rebuild'>> {
  if (!(await needsSqliteRebuild(db))) return {};
  try {
    return { rebuild: { ok: true, result: await rebuildSqliteTasksTable(db) } };
  } catch (err) {
    return { rebuild: { ok: false, error: (err as Error).message } };
  }
}

async function migratePostgres(db: PostgresDb, files: MigrationFile[]): Promise<MigrationResult> {
  const client = await db.pool.connect();
  const applied: string[] = [];
  try {
    // Session-level advisory lock: a second process blocks here until the first has finished.
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query(HISTORY);
    const rows = (await client.query<Applied>('SELECT version, name, checksum FROM schema_migrations ORDER BY version')).rows;
    check(rows, files);
    const done = new Set(rows.map((r) => Number(r.version)));
    for (const file of files) {
      if (done.has(file.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(file.sql);
        await client.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [
          file.version,
          file.name,
          file.checksum,
          new Date().toISOString(),
        ]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`);
      }
      applied.push(file.name);
      rows.push(file);
    }
    return { applied, version: currentVersion(rows) };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    client.release();
  }
}

function currentVersion(rows: Applied[]): number {
  return rows.reduce((max, r) => Math.max(max, Number(r.version)), 0);
}

/** The highest applied version, or 0 before the first migration. */
export async function schemaVersion(db: Db): Promise<number> {
  try {
    const row = await db.one<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
    return Number(row?.v ?? 0);
  } catch {
    return 0;
  }
}
