// SPEC §12: applied migrations are recorded in `_prisma_migrations` exactly as Prisma Migrate records them. Held
// against Prisma's own schema engine (tests/integration/db/prisma-engines.ts): the table it creates, the rows
// `prisma migrate deploy` writes, and what `prisma migrate status` / `deploy` make of Tether's history.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import { migrate, PRISMA_DIR, readMigrations } from '../../../src/server/db/schema/migrate';
import {
  HISTORY_DDL,
  renderChecksum,
  scriptMatchesChecksum,
  type HistoryRow,
} from '../../../src/server/db/schema/migration-history';
import type { Db } from '../../../src/server/db/types';
import { freshDatabaseUrl, testDialect } from '../../support/db';
import { readCatalog } from './catalog';
import { migrationsDir } from './migration-folders';
import { deployWithPrisma, diagnoseHistory } from './prisma-engines';

const dialect = testDialect();

const rows = (db: Db) => db.query<HistoryRow>('SELECT * FROM _prisma_migrations ORDER BY started_at, migration_name');
/** PostgreSQL hands timestamps back as ISO text (db/dialect), SQLite as the stored epoch milliseconds. */
const ms = (v: unknown) => (typeof v === 'number' ? v : Date.parse(String(v)));

describe('_prisma_migrations, as Prisma Migrate keeps it (SPEC §12)', () => {
  const opened: Db[] = [];
  const open = (url: string) => {
    const db = openDb(url);
    opened.push(db);
    return db;
  };
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });

  it('computes the checksum as Prisma does: SHA-256 of migration.sql, 64 lowercase hex digits', () => {
    // Upstream's own test vector (schema-connector/src/checksum.rs).
    expect(renderChecksum('hello')).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(scriptMatchesChecksum('a;\r\nb;\r\n', renderChecksum('a;\nb;\n'))).toBe(true);
    expect(scriptMatchesChecksum('a;\nb; ', renderChecksum('a;\nb;'))).toBe(false);
    // Rows from before prisma-engines#1887 hold hex digits without zero padding.
    const unpadded = [...Buffer.from(renderChecksum('hello'), 'hex')].map((b) => b.toString(16)).join('');
    expect(unpadded.length).toBeLessThan(64);
    expect(scriptMatchesChecksum('hello', unpadded)).toBe(true);
  });

  it('writes one row per migration the way `prisma migrate deploy` does', async () => {
    const db = open(await freshDatabaseUrl());
    const before = Date.now();
    await migrate(db);
    const after = Date.now();
    const files = readMigrations(dialect);
    const written = await rows(db);
    expect(written.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    let previous = before;
    for (const [i, row] of written.entries()) {
      const sql = readFileSync(join(PRISMA_DIR, dialect, 'migrations', row.migration_name, 'migration.sql'), 'utf8');
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.checksum).toBe(renderChecksum(sql));
      expect(row.checksum).toBe(files[i]!.checksum);
      expect(row).toMatchObject({ logs: null, rolled_back_at: null, applied_steps_count: 1 });
      expect(ms(row.started_at)).toBeGreaterThanOrEqual(previous);
      expect(ms(row.finished_at)).toBeGreaterThanOrEqual(ms(row.started_at));
      expect(ms(row.finished_at)).toBeLessThanOrEqual(after);
      previous = ms(row.finished_at);
    }
    // Stored as Prisma's engine binds them: timestamptz on PostgreSQL, INTEGER epoch milliseconds on SQLite.
    const kinds =
      dialect === 'postgres'
        ? await db.query(
            `SELECT DISTINCT pg_typeof(started_at)::text AS s, pg_typeof(finished_at)::text AS f FROM _prisma_migrations`,
          )
        : await db.query(`SELECT DISTINCT typeof(started_at) AS s, typeof(finished_at) AS f FROM _prisma_migrations`);
    expect(kinds).toEqual([
      dialect === 'postgres'
        ? { s: 'timestamp with time zone', f: 'timestamp with time zone' }
        : { s: 'integer', f: 'integer' },
    ]);
  });

  it("creates the table with Prisma's own DDL", async () => {
    const ours = open(await freshDatabaseUrl());
    await migrate(ours);
    const prismaUrl = await freshDatabaseUrl();
    expect(await deployWithPrisma(prismaUrl, dialect, [])).toEqual({ appliedMigrationNames: [] });
    const theirs = open(prismaUrl);
    expect((await readCatalog(ours)).get('_prisma_migrations')).toEqual(
      (await readCatalog(theirs)).get('_prisma_migrations'),
    );
    if (dialect === 'sqlite') {
      const ddl = (db: Db) =>
        db.one<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE name = '_prisma_migrations'`);
      expect(await ddl(ours)).toEqual(await ddl(theirs));
      expect(`${(await ddl(ours))!.sql};\n`).toBe(HISTORY_DDL.sqlite);
    }
  });

  it('is read by Prisma Migrate as up to date: nothing failed, edited or unapplied, nothing for deploy to do', async () => {
    const url = await freshDatabaseUrl();
    const db = open(url);
    await migrate(db);
    await db.close();
    const files = readMigrations(dialect);
    expect(await diagnoseHistory(url, dialect, files)).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
    expect(await deployWithPrisma(url, dialect, files)).toEqual({ appliedMigrationNames: [] });
  });

  // Small scripts: Prisma's JS driver adapter for PostgreSQL splits a script at every `;`, comments included (the
  // native CLI sends it whole), so the real migrations' comments would trip it; the history is what is tested.
  it('continues a history that Prisma Migrate started, and Prisma sees the whole of it', async () => {
    const dir = migrationsDir({
      '20240101000000_a': 'CREATE TABLE m_a (id integer);\n',
      '20240102000000_b': 'CREATE TABLE m_b (id integer);\n',
      '20240103000000_c': 'CREATE TABLE m_c (id integer);\n',
    });
    const files = readMigrations(dialect, dir);
    const url = await freshDatabaseUrl();
    expect(await deployWithPrisma(url, dialect, files.slice(0, 2))).toEqual({
      appliedMigrationNames: ['20240101000000_a', '20240102000000_b'],
    });
    const db = open(url);
    const byName = () => db.query<HistoryRow>('SELECT * FROM _prisma_migrations ORDER BY migration_name');
    const prismaRows = await byName();
    const result = await migrate(db, files);
    expect(result).toEqual({ applied: ['20240103000000_c'], version: 3 });
    expect((await byName()).slice(0, 2)).toEqual(prismaRows);
    await db.close();
    expect(await diagnoseHistory(url, dialect, files)).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
  });

  it('refuses to migrate past a failed attempt Prisma Migrate recorded, and re-applies it once resolved as rolled back', async () => {
    const dir = migrationsDir({
      '20240101000000_a': 'CREATE TABLE m_a (id integer);',
      '20240102000000_b': 'CREATE TABLE m_b (id integer);',
    });
    const files = readMigrations(dialect, dir);
    const db = open(await freshDatabaseUrl());
    await migrate(db, files.slice(0, 1));
    // What `prisma migrate deploy` leaves after a failing script: started, never finished, the error in logs.
    const started = dialect === 'postgres' ? new Date() : Date.now();
    await db.run(
      'INSERT INTO _prisma_migrations (id, checksum, started_at, migration_name, logs) VALUES ($1, $2, $3, $4, $5)',
      [randomUUID(), files[1]!.checksum, started, files[1]!.name, 'Database error: relation "x" does not exist'],
    );
    const refused = migrate(db, files);
    await expect(refused).rejects.toThrow(
      /migration 20240102000000_b is recorded as started but not finished \(a failed attempt: Database error: relation "x" does not exist\).*prisma migrate resolve --rolled-back 20240102000000_b/,
    );
    expect(await db.query(`SELECT * FROM _prisma_migrations WHERE migration_name = '20240102000000_b'`)).toHaveLength(
      1,
    );

    // `prisma migrate resolve --rolled-back` sets rolled_back_at; the migration is then applied as a new row.
    await db.run('UPDATE _prisma_migrations SET rolled_back_at = $1 WHERE finished_at IS NULL', [started]);
    expect((await migrate(db, files)).applied).toEqual(['20240102000000_b']);
    const history = await db.query<HistoryRow>(
      `SELECT * FROM _prisma_migrations WHERE migration_name = '20240102000000_b' ORDER BY started_at`,
    );
    expect(history.map((r) => [r.finished_at === null, r.rolled_back_at === null])).toEqual([
      [true, false],
      [false, true],
    ]);
  });
});
