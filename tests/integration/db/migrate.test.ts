// SPEC §12 migration runner guarantees, on the dialect of the running project: apply and re-apply, concurrent
// starts migrate exactly once, an edited applied file is refused, a failing file rolls back entirely.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/dialect';
import { MigrationError, migrate, readMigrations, schemaVersion } from '../../../src/server/db/migrate';
import type { Db } from '../../../src/server/db/types';
import { emptyDb, freshDatabaseUrl, testDialect } from '../../support/db';

const dialect = testDialect();
const run = promisify(execFile);

/** A throwaway migrations folder: `{ '0001_a.sql': '…' }` → its root (readMigrations appends the dialect). */
function migrationsDir(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tether-migrations-'));
  mkdirSync(join(root, dialect));
  for (const [name, sql] of Object.entries(files)) writeFileSync(join(root, dialect, name), sql);
  return root;
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const sql =
    dialect === 'postgres'
      ? 'SELECT to_regclass($1) IS NOT NULL AS e'
      : `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1) AS e`;
  return Boolean((await db.one<{ e: unknown }>(sql, [name]))?.e);
}

// Slow enough that two concurrent runners overlap; not idempotent, so a double apply fails loudly.
const SLOW =
  dialect === 'postgres'
    ? 'SELECT pg_sleep(0.4);'
    : 'CREATE TABLE m_busy AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT x FROM c;';
const CONCURRENT = {
  '0001_log.sql': `CREATE TABLE m_log (version integer NOT NULL); INSERT INTO m_log VALUES (1); ${SLOW}`,
  '0002_more.sql': 'CREATE TABLE m_two (id integer PRIMARY KEY); INSERT INTO m_log VALUES (2);',
  '0003_more.sql': 'INSERT INTO m_log VALUES (3);',
};

describe('migration runner (SPEC §12)', () => {
  const opened: Db[] = [];
  const open = async (db: Db | Promise<Db>) => {
    const d = await db;
    opened.push(d);
    return d;
  };
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });

  it('applies every migration, then a re-run is a no-op', async () => {
    const db = await open(emptyDb());
    const files = readMigrations(dialect);
    const first = await migrate(db);
    expect(first.applied).toEqual(files.map((f) => f.name));
    expect(first.version).toBe(files.at(-1)!.version);
    const again = await migrate(db);
    expect(again).toEqual({ applied: [], version: first.version });
    expect(await schemaVersion(db)).toBe(first.version);
  });

  it('refuses an edited, already-applied migration with a clear error', async () => {
    const dir = migrationsDir({ '0001_a.sql': 'CREATE TABLE m_a (id integer);' });
    const db = await open(emptyDb());
    await migrate(db, readMigrations(dialect, dir));
    writeFileSync(join(dir, dialect, '0001_a.sql'), 'CREATE TABLE m_a (id integer, extra text);');
    const edited = migrate(db, readMigrations(dialect, dir));
    await expect(edited).rejects.toBeInstanceOf(MigrationError);
    await expect(edited).rejects.toThrow(/migration 0001_a\.sql was edited after it was applied .*add a new migration instead/);
  });

  it('refuses to run when an applied migration file has disappeared', async () => {
    const dir = migrationsDir({ '0001_a.sql': 'CREATE TABLE m_a (id integer);', '0002_b.sql': 'CREATE TABLE m_b (id integer);' });
    const db = await open(emptyDb());
    await migrate(db, readMigrations(dialect, dir));
    await expect(migrate(db, readMigrations(dialect, dir).slice(0, 1))).rejects.toThrow(
      'migration 0002_b.sql is recorded as applied but its file is missing',
    );
  });

  it('rolls a failing migration back entirely and records nothing for it', async () => {
    const dir = migrationsDir({
      '0001_ok.sql': 'CREATE TABLE m_ok (id integer);',
      '0002_broken.sql': 'CREATE TABLE m_half (id integer); INSERT INTO m_ok VALUES (1); INSERT INTO no_such_table VALUES (1);',
    });
    const db = await open(emptyDb());
    const failing = migrate(db, readMigrations(dialect, dir));
    await expect(failing).rejects.toBeInstanceOf(MigrationError);
    await expect(failing).rejects.toThrow(/migration 0002_broken\.sql failed: .*no_such_table/);
    expect(await tableExists(db, 'm_ok')).toBe(true);
    expect(await tableExists(db, 'm_half')).toBe(false);
    expect(await db.query('SELECT id FROM m_ok')).toEqual([]);
    expect(await db.query('SELECT version FROM schema_migrations')).toEqual([{ version: 1 }]);
  });

  it('applies a fixed migration after a failed attempt', async () => {
    const dir = migrationsDir({ '0001_broken.sql': 'CREATE TABLE m_x (id integer); SELECT * FROM no_such_table;' });
    const db = await open(emptyDb());
    await expect(migrate(db, readMigrations(dialect, dir))).rejects.toThrow(MigrationError);
    writeFileSync(join(dir, dialect, '0001_broken.sql'), 'CREATE TABLE m_x (id integer);');
    expect((await migrate(db, readMigrations(dialect, dir))).applied).toEqual(['0001_broken.sql']);
  });

  it('migrates exactly once when two processes start at the same moment', async () => {
    const dir = migrationsDir(CONCURRENT);
    const url = await freshDatabaseUrl();
    const child = resolve(import.meta.dirname, 'migrate-child.ts');
    const startAt = String(Date.now() + 2500); // both children are loaded and waiting by then
    const outputs = await Promise.all(
      [1, 2].map(async () => JSON.parse((await run(process.execPath, ['--import', 'tsx', child, url, startAt, dir])).stdout) as { applied: string[] }),
    );
    // Each file applied by exactly one of them, the log written once per file.
    expect([...outputs[0]!.applied, ...outputs[1]!.applied].sort()).toEqual(Object.keys(CONCURRENT));
    const db = await open(openDb(url));
    expect(await db.query('SELECT version FROM m_log ORDER BY version')).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    expect(await db.query('SELECT version FROM schema_migrations ORDER BY version')).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
  });

  it.runIf(dialect === 'postgres')('migrates the real schema exactly once from two connection pools at the same moment', async () => {
    const url = await freshDatabaseUrl();
    const [a, b] = [await open(openDb(url)), await open(openDb(url))];
    const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
    expect([...ra.applied, ...rb.applied].sort()).toEqual(readMigrations(dialect).map((f) => f.name));
    expect(ra.version).toBe(rb.version);
  });
});
