// SPEC §12: Tether's migration runner, for where the Prisma CLI cannot run. It reads Prisma Migrate's layout
// (prisma/<dialect>/migrations/<YYYYMMDDHHMMSS>_<name>/migration.sql) and records each applied migration in
// `_prisma_migrations` as Prisma does (migration-history.ts). Each migration is applied in its own
// transaction together with its history row, so a failure leaves neither; two processes are kept apart (a
// PostgreSQL advisory lock, SQLite's BEGIN IMMEDIATE); a re-run is a no-op; an edited applied migration is refused.
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type pg from 'pg';
import { PROJECT_ROOT } from '../../project-root';
import type { Db, Dialect, Sql } from '../types';
import { PostgresDb, SqliteDb } from '../drivers';
import { needsSqliteRebuild, rebuildSqliteTasksTable, type RebuildResult } from './sqlite-rebuild';
import {
  appliedCount,
  carryLegacyHistory,
  HISTORY_DDL,
  historyTimestamp,
  LEGACY_TABLE,
  lockfileProvider,
  MigrationError,
  pendingMigrations,
  providerOf,
  renderChecksum,
  SELECT_HISTORY,
  type HistoryRow,
  type LegacyRow,
  type MigrationFile,
} from './migration-history';

export { MigrationError, type MigrationFile } from './migration-history';

export interface MigrationResult {
  applied: string[];
  /** The number of applied migrations (a database migrated by the old numbered runner says 4). */
  version: number;
  /**
   * SQLite only: set when `tasks` failed attestation for a collation reason and was rebuilt (SPEC §12).
   * A failed rebuild does not throw — the server still starts, not ready, with the reason on /api/health.
   */
  rebuild?: { ok: true; result: RebuildResult } | { ok: false; error: string };
}

/** The folder holding `<dialect>/schema.prisma` and `<dialect>/migrations/`. */
export const PRISMA_DIR = resolve(PROJECT_ROOT, 'prisma');

// `prisma migrate deploy` takes pg_advisory_lock(72707369): taking the same key keeps Tether and the Prisma CLI
// from migrating one database at once. The old runner's key is taken too, so a process of the previous
// version starting during an upgrade waits instead of racing.
const PRISMA_LOCK_KEY = 72707369;
const LEGACY_LOCK_KEY = 0x7e7e_0001;

/** Every migration folder, in Prisma's order (`localeCompare` of the folder names, i.e. by timestamp). */
export function readMigrations(dialect: Dialect, root = PRISMA_DIR): MigrationFile[] {
  const folder = join(root, dialect, 'migrations');
  const lock = join(folder, 'migration_lock.toml');
  if (existsSync(lock)) {
    const provider = lockfileProvider(readFileSync(lock, 'utf8'));
    if (provider !== providerOf(dialect)) {
      throw new MigrationError(
        `${lock} is for provider ${provider ?? '<none>'}, not ${providerOf(dialect)}; these migrations belong to another database`,
      );
    }
  }
  return readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort((a, b) => a.localeCompare(b))
    .map((name) => {
      const file = join(folder, name, 'migration.sql');
      if (!existsSync(file)) throw new MigrationError(`migration folder ${name} has no migration.sql`);
      const sql = readFileSync(file, 'utf8');
      return { name, sql, checksum: renderChecksum(sql) };
    });
}

/** Applies every pending migration. Safe to run concurrently and repeatedly (a re-run is a no-op). */
export async function migrate(db: Db, files = readMigrations(db.dialect)): Promise<MigrationResult> {
  return db instanceof PostgresDb ? migratePostgres(db, files) : migrateSqlite(db as SqliteDb, files);
}

async function tableExists(db: Sql, name: string): Promise<boolean> {
  const sql =
    db.dialect === 'postgres'
      ? 'SELECT to_regclass($1) IS NOT NULL AS e'
      : `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1) AS e`;
  return Boolean((await db.one<{ e: unknown }>(sql, [name]))?.e);
}

async function readHistory(db: Sql): Promise<HistoryRow[]> {
  return db.query<HistoryRow>(SELECT_HISTORY);
}

/**
 * Inside one transaction: creates `_prisma_migrations` with Prisma's DDL when missing, and carries a database
 * migrated by the old runner over (its `schema_migrations` rows become `_prisma_migrations` rows, then the old
 * table is dropped), so the upgrade is all or nothing.
 */
async function prepareHistory(tx: Sql, files: MigrationFile[]): Promise<void> {
  if (!(await tableExists(tx, '_prisma_migrations'))) await tx.run(HISTORY_DDL[tx.dialect]);
  if (!(await tableExists(tx, LEGACY_TABLE))) return;
  const legacy = await tx.query<LegacyRow>(`SELECT version, name, checksum, applied_at FROM ${LEGACY_TABLE}`);
  for (const row of carryLegacyHistory(legacy, await readHistory(tx), files)) {
    const at = historyTimestamp(tx.dialect, row.at);
    await tx.run(
      `INSERT INTO _prisma_migrations (id, checksum, started_at, finished_at, migration_name, applied_steps_count)
       VALUES ($1, $2, $3, $4, $5, 1)`,
      [randomUUID(), row.checksum, at, at, row.name],
    );
  }
  await tx.run(`DROP TABLE ${LEGACY_TABLE}`);
}

/**
 * What `prisma migrate deploy` writes for one migration, in its order: the started row (application clock),
 * the script, applied_steps_count + 1, finished_at. Here all of it is one transaction (see the file header).
 */
async function applyOne(tx: Sql, file: MigrationFile, runScript: () => Promise<void>): Promise<void> {
  const id = randomUUID();
  await tx.run('INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name) VALUES ($1, $2, $3, $4)', [
    id,
    file.checksum,
    historyTimestamp(tx.dialect, new Date()),
    file.name,
  ]);
  try {
    await runScript();
  } catch (err) {
    throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`);
  }
  await tx.run('UPDATE _prisma_migrations SET applied_steps_count = applied_steps_count + 1 WHERE id = $1', [id]);
  await tx.run('UPDATE _prisma_migrations SET finished_at = $1 WHERE id = $2', [
    historyTimestamp(tx.dialect, new Date()),
    id,
  ]);
}

async function migrateSqlite(db: SqliteDb, files: MigrationFile[]): Promise<MigrationResult> {
  // BEGIN IMMEDIATE takes SQLite's write lock: a second process waits, then sees the rows and skips.
  await db.transaction((tx) => prepareHistory(tx, files));
  const applied: string[] = [];
  for (;;) {
    const next = await applySqliteNext(db, files);
    if (!next) break;
    applied.push(next);
  }
  return { applied, version: appliedCount(await readHistory(db)), ...(await repairSqliteCollation(db)) };
}

/**
 * Applies the first pending migration in its own transaction; undefined when none is left. Foreign keys are off
 * while it runs (the pragma is a no-op inside a transaction, so it brackets it) and checked before the commit:
 * SQLite changes a table's shape by copying it and dropping the original (Prisma's generated migrations do so),
 * and with foreign keys on, that DROP would delete the children of every row through ON DELETE CASCADE.
 */
async function applySqliteNext(db: SqliteDb, files: MigrationFile[]): Promise<string | undefined> {
  await db.exec('PRAGMA foreign_keys = OFF');
  try {
    return await db.transaction(async (tx) => {
      const [file] = pendingMigrations(await readHistory(tx), files);
      if (!file) return undefined;
      await applyOne(tx, file, async () => {
        db.raw.exec(file.sql);
        const violations = await tx.query('SELECT * FROM pragma_foreign_key_check');
        if (violations.length > 0) throw new Error(`it leaves ${violations.length} foreign key violation(s)`);
      });
      return file.name;
    });
  } finally {
    await db.exec('PRAGMA foreign_keys = ON');
  }
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

/** One pooled connection as `Sql`, for running the shared steps on the connection that holds the lock. */
function clientSql(client: pg.PoolClient): Sql {
  return {
    dialect: 'postgres',
    query: async <T>(text: string, params: readonly unknown[] = []) =>
      (await client.query(text, params as unknown[])).rows as T[],
    one: async <T>(text: string, params: readonly unknown[] = []) =>
      (await client.query(text, params as unknown[])).rows[0] as T | undefined,
    run: async (text: string, params: readonly unknown[] = []) =>
      (await client.query(text, params as unknown[])).rowCount ?? 0,
  };
}

async function inTransaction(client: pg.PoolClient, fn: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await fn();
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  }
}

/**
 * SPEC §12: a migration holds a session-level advisory lock across several transactions (as `prisma migrate deploy`
 * does), which PgBouncer's transaction pooling cannot give: each transaction may run on another server connection,
 * so the lock would be taken on one and never released. Migrations therefore run on DIRECT_DATABASE_URL when it is
 * set (Prisma's `directUrl`), and refuse to run through a pooler without it.
 */
async function migratePostgres(db: PostgresDb, files: MigrationFile[]): Promise<MigrationResult> {
  if (db.directUrl) {
    const direct = db.openDirect();
    try {
      if (direct.pooler)
        throw new MigrationError(
          'DIRECT_DATABASE_URL goes through PgBouncer (pgbouncer=true): it must reach PostgreSQL itself',
        );
      return await migrateSession(direct, files);
    } finally {
      await direct.close();
    }
  }
  if (db.pooler) {
    throw new MigrationError(
      'DATABASE_URL goes through PgBouncer (pgbouncer=true), where a migration cannot hold its lock: set DIRECT_DATABASE_URL to PostgreSQL itself',
    );
  }
  return migrateSession(db, files);
}

async function migrateSession(db: PostgresDb, files: MigrationFile[]): Promise<MigrationResult> {
  const client = await db.pool.connect();
  const sql = clientSql(client);
  const applied: string[] = [];
  try {
    // Session-level advisory locks: a second process blocks here until the first has finished.
    await client.query('SELECT pg_advisory_lock($1), pg_advisory_lock($2)', [PRISMA_LOCK_KEY, LEGACY_LOCK_KEY]);
    await inTransaction(client, () => prepareHistory(sql, files));
    for (const file of pendingMigrations(await readHistory(sql), files)) {
      // The script goes as one simple-protocol query (no parameters), as Prisma sends it: several statements.
      await inTransaction(client, () => applyOne(sql, file, async () => void (await client.query(file.sql))));
      applied.push(file.name);
    }
    return { applied, version: appliedCount(await readHistory(sql)) };
  } finally {
    await client
      .query('SELECT pg_advisory_unlock($1), pg_advisory_unlock($2)', [LEGACY_LOCK_KEY, PRISMA_LOCK_KEY])
      .catch(() => {});
    client.release();
  }
}

/**
 * The number of applied migrations, or 0 before the first one. A database the old runner migrated and this
 * version has not yet upgraded counts its `schema_migrations` rows (the same number).
 */
export async function schemaVersion(db: Db): Promise<number> {
  try {
    if (await tableExists(db, '_prisma_migrations')) return appliedCount(await readHistory(db));
    if (await tableExists(db, LEGACY_TABLE))
      return Number((await db.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${LEGACY_TABLE}`))?.n ?? 0);
    return 0;
  } catch {
    return 0;
  }
}
