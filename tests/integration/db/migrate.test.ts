// SPEC §12 migration runner guarantees, on the dialect of the running project: apply and re-apply, concurrent
// starts migrate exactly once, an edited applied migration is refused, a failing one rolls back entirely.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import { MigrationError, migrate, readMigrations, schemaVersion } from '../../../src/server/db/schema/migrate';
import { lockfileText } from '../../../src/server/db/schema/migration-history';
import { migrationsDir, writeMigration } from './migration-folders';
import type { Db } from '../../../src/server/db/types';
import { emptyDb, freshDatabaseUrl, testDialect } from '../../support/db';

const dialect = testDialect();
const run = promisify(execFile);

async function tableExists(db: Db, name: string): Promise<boolean> {
  const sql =
    dialect === 'postgres'
      ? 'SELECT to_regclass($1) IS NOT NULL AS e'
      : `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1) AS e`;
  return Boolean((await db.one<{ e: unknown }>(sql, [name]))?.e);
}

const names = (db: Db) =>
  db.query<{ migration_name: string }>(
    'SELECT migration_name FROM _prisma_migrations ORDER BY started_at, migration_name',
  );

// Slow enough that two concurrent runners overlap; not idempotent, so a double apply fails loudly.
const SLOW =
  dialect === 'postgres'
    ? 'SELECT pg_sleep(0.4);'
    : 'CREATE TABLE m_busy AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 200000) SELECT x FROM c;';
const CONCURRENT = {
  '20240101000001_log': `CREATE TABLE m_log (version integer NOT NULL); INSERT INTO m_log VALUES (1); ${SLOW}`,
  '20240101000002_more': 'CREATE TABLE m_two (id integer PRIMARY KEY); INSERT INTO m_log VALUES (2);',
  '20240101000003_more': 'INSERT INTO m_log VALUES (3);',
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

  it('applies every migration folder in order, then a re-run is a no-op', async () => {
    const db = await open(emptyDb());
    const files = readMigrations(dialect);
    expect(files.map((f) => f.name)).toEqual([...files.map((f) => f.name)].sort());
    const first = await migrate(db);
    expect(first.applied).toEqual(files.map((f) => f.name));
    expect(first.version).toBe(files.length);
    const again = await migrate(db);
    expect(again).toEqual({ applied: [], version: first.version });
    expect(await schemaVersion(db)).toBe(files.length);
    expect(await names(db)).toEqual(files.map((f) => ({ migration_name: f.name })));
  });

  it('refuses an edited, already-applied migration with a clear error and applies nothing after it', async () => {
    const dir = migrationsDir({ '20240101000000_a': 'CREATE TABLE m_a (id integer);' });
    const db = await open(emptyDb());
    await migrate(db, readMigrations(dialect, dir));
    writeFileSync(
      join(dir, dialect, 'migrations', '20240101000000_a', 'migration.sql'),
      'CREATE TABLE m_a (id integer, extra text);',
    );
    writeMigration(dir, '20240102000000_b', 'CREATE TABLE m_b (id integer);');
    const edited = migrate(db, readMigrations(dialect, dir));
    await expect(edited).rejects.toBeInstanceOf(MigrationError);
    await expect(edited).rejects.toThrow(
      /migration 20240101000000_a was edited after it was applied .*add a new migration instead/,
    );
    expect(await tableExists(db, 'm_b')).toBe(false);
  });

  it('does not count a line-ending-only change as an edit (Prisma compares CRLF and LF forms alike)', async () => {
    const dir = migrationsDir({
      '20240101000000_a': 'CREATE TABLE m_a (id integer);\nCREATE TABLE m_b (id integer);\n',
    });
    const db = await open(emptyDb());
    await migrate(db, readMigrations(dialect, dir));
    writeFileSync(
      join(dir, dialect, 'migrations', '20240101000000_a', 'migration.sql'),
      'CREATE TABLE m_a (id integer);\r\nCREATE TABLE m_b (id integer);\r\n',
    );
    expect((await migrate(db, readMigrations(dialect, dir))).applied).toEqual([]);
  });

  it('refuses to run when an applied migration folder has disappeared', async () => {
    const dir = migrationsDir({
      '20240101000000_a': 'CREATE TABLE m_a (id integer);',
      '20240102000000_b': 'CREATE TABLE m_b (id integer);',
    });
    const db = await open(emptyDb());
    await migrate(db, readMigrations(dialect, dir));
    await expect(migrate(db, readMigrations(dialect, dir).slice(0, 1))).rejects.toThrow(
      'migration 20240102000000_b is recorded as applied but its folder is missing',
    );
  });

  it('rolls a failing migration back entirely and records nothing for it', async () => {
    const dir = migrationsDir({
      '20240101000000_ok': 'CREATE TABLE m_ok (id integer);',
      '20240102000000_broken':
        'CREATE TABLE m_half (id integer); INSERT INTO m_ok VALUES (1); INSERT INTO no_such_table VALUES (1);',
    });
    const db = await open(emptyDb());
    const failing = migrate(db, readMigrations(dialect, dir));
    await expect(failing).rejects.toBeInstanceOf(MigrationError);
    await expect(failing).rejects.toThrow(/migration 20240102000000_broken failed: .*no_such_table/);
    expect(await tableExists(db, 'm_ok')).toBe(true);
    expect(await tableExists(db, 'm_half')).toBe(false);
    expect(await db.query('SELECT id FROM m_ok')).toEqual([]);
    expect(await names(db)).toEqual([{ migration_name: '20240101000000_ok' }]);
  });

  it('applies a fixed migration after a failed attempt', async () => {
    const dir = migrationsDir({
      '20240101000000_broken': 'CREATE TABLE m_x (id integer); SELECT * FROM no_such_table;',
    });
    const db = await open(emptyDb());
    await expect(migrate(db, readMigrations(dialect, dir))).rejects.toThrow(MigrationError);
    writeFileSync(
      join(dir, dialect, 'migrations', '20240101000000_broken', 'migration.sql'),
      'CREATE TABLE m_x (id integer);',
    );
    expect((await migrate(db, readMigrations(dialect, dir))).applied).toEqual(['20240101000000_broken']);
  });

  it("refuses a migrations folder whose migration_lock.toml names the other database's provider", () => {
    const other = dialect === 'postgres' ? 'sqlite' : 'postgres';
    const dir = migrationsDir({ '20240101000000_a': 'SELECT 1;' }, lockfileText(other));
    expect(() => readMigrations(dialect, dir)).toThrow(/migration_lock\.toml is for provider .*, not /);
  });

  it('migrates exactly once when two processes start at the same moment', async () => {
    const dir = migrationsDir(CONCURRENT);
    const url = await freshDatabaseUrl();
    const child = resolve(import.meta.dirname, 'migrate-child.ts');
    const startAt = String(Date.now() + 2500); // both children are loaded and waiting by then
    const outputs = await Promise.all(
      [1, 2].map(
        async () =>
          JSON.parse((await run(process.execPath, ['--import', 'tsx', child, url, startAt, dir])).stdout) as {
            applied: string[];
          },
      ),
    );
    // Each folder applied by exactly one of them, the log written once per folder.
    expect([...outputs[0]!.applied, ...outputs[1]!.applied].sort()).toEqual(Object.keys(CONCURRENT));
    const db = await open(openDb(url));
    expect(await db.query('SELECT version FROM m_log ORDER BY version')).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
    ]);
    expect(await names(db)).toEqual(Object.keys(CONCURRENT).map((migration_name) => ({ migration_name })));
  });

  it.runIf(dialect === 'postgres')(
    'migrates the real schema exactly once from two connection pools at the same moment',
    async () => {
      const url = await freshDatabaseUrl();
      const [a, b] = [await open(openDb(url)), await open(openDb(url))];
      const [ra, rb] = await Promise.all([migrate(a), migrate(b)]);
      expect([...ra.applied, ...rb.applied].sort()).toEqual(readMigrations(dialect).map((f) => f.name));
      expect(ra.version).toBe(rb.version);
    },
  );

  // Prisma's generated SQLite migrations change a table's shape by copying it to a new table, dropping the old one
  // and renaming. With foreign keys on, that DROP deletes every child row through ON DELETE CASCADE.
  it.runIf(dialect === 'sqlite')(
    'keeps child rows when a migration redefines a parent table the way Prisma does on SQLite',
    async () => {
      const dir = migrationsDir({
        '20240101000000_init': `CREATE TABLE p (id text PRIMARY KEY, name text NOT NULL);
CREATE TABLE c (id text PRIMARY KEY, p_id text NOT NULL REFERENCES p (id) ON DELETE CASCADE);`,
      });
      const db = await open(emptyDb());
      await migrate(db, readMigrations(dialect, dir));
      await db.run(`INSERT INTO p VALUES ('p1', 'one')`);
      await db.run(`INSERT INTO c VALUES ('c1', 'p1')`);
      writeMigration(
        dir,
        '20240102000000_redefine_p',
        `PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_p" ("id" TEXT NOT NULL PRIMARY KEY, "name" TEXT NOT NULL, "note" TEXT);
INSERT INTO "new_p" ("id", "name") SELECT "id", "name" FROM "p";
DROP TABLE "p";
ALTER TABLE "new_p" RENAME TO "p";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
`,
      );
      expect((await migrate(db, readMigrations(dialect, dir))).applied).toEqual(['20240102000000_redefine_p']);
      expect(await db.query('SELECT id, p_id FROM c')).toEqual([{ id: 'c1', p_id: 'p1' }]);
      expect(await db.query('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
    },
  );

  it.runIf(dialect === 'sqlite')(
    'refuses a migration that leaves foreign key violations, and rolls it back',
    async () => {
      const dir = migrationsDir({
        '20240101000000_init':
          'CREATE TABLE p (id text PRIMARY KEY); CREATE TABLE c (id text PRIMARY KEY, p_id text REFERENCES p (id));',
        '20240102000000_orphan': `INSERT INTO c VALUES ('c1', 'nobody');`,
      });
      const db = await open(emptyDb());
      await expect(migrate(db, readMigrations(dialect, dir))).rejects.toThrow(
        /20240102000000_orphan failed: it leaves 1 foreign key violation/,
      );
      expect(await db.query('SELECT * FROM c')).toEqual([]);
    },
  );
});
