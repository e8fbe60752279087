// A fresh, migrated database per test file, on the dialect of the running vitest project.
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openDb } from '../../src/server/db/drivers';
import { migrate, readMigrations } from '../../src/server/db/schema/migrate';
import pg from 'pg';
import { Store } from '../../src/server/db/store';
import type { Db, Dialect } from '../../src/server/db/types';
import { createDatabase } from './postgres-server';

export function testDialect(): Dialect {
  return process.env.TETHER_TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
}

/** A URL for a new, empty database (nothing migrated). */
export async function freshDatabaseUrl(): Promise<string> {
  if (testDialect() === 'postgres') {
    return createDatabase(inject('pgUrl'), `t_${randomBytes(6).toString('hex')}`);
  }
  return `file:${join(mkdtempSync(join(tmpdir(), 'tether-sqlite-')), 'tether.db')}`;
}

/** Opens a new, empty database (nothing migrated). */
export async function emptyDb(): Promise<Db> {
  return openDb(await freshDatabaseUrl());
}

/**
 * Opens a new database with every migration applied: a copy of a database migrated once (see migratedTemplate), as a
 * test would get by migrating its own — migrating each of the run's few hundred test databases cost PostgreSQL a
 * fifth of a CPU-second a time. The tests of migrating itself start from `emptyDb()`.
 */
export async function freshDb(): Promise<Db> {
  if (testDialect() === 'postgres') {
    const server = inject('pgUrl');
    return openDb(await createDatabase(server, `t_${randomBytes(6).toString('hex')}`, await postgresTemplate(server)));
  }
  sqliteTemplate ??= migratedSqliteFile();
  const template = await sqliteTemplate;
  const file = join(mkdtempSync(join(tmpdir(), 'tether-sqlite-')), 'tether.db');
  copyFileSync(template, file);
  return openDb(`file:${file}`);
}

let sqliteTemplate: Promise<string> | undefined;

/** A SQLite file with every migration applied, closed (its WAL folded back into the file), for this test process. */
async function migratedSqliteFile(): Promise<string> {
  const url = await freshDatabaseUrl();
  const db = openDb(url);
  try {
    await migrate(db);
    await db.query('PRAGMA wal_checkpoint(TRUNCATE)');
  } finally {
    await db.close();
  }
  return url.slice('file:'.length);
}

/**
 * The name of a database on the run's server with every migration applied, made by the first test process to ask:
 * named by the migrations' names and checksums, so a changed migration makes a new one. It is migrated under a
 * scratch name and renamed when done, so no one copies a half-migrated database; when two processes race, the
 * second's rename fails and it drops its own.
 */
async function postgresTemplate(server: string): Promise<string> {
  const files = readMigrations('postgres');
  const digest = createHash('sha256')
    .update(files.map((f) => `${f.name} ${f.checksum}`).join('\n'))
    .digest('hex');
  const name = `tether_migrated_${digest.slice(0, 16)}`;
  const exists = await adminQuery(server, 'SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (exists.rowCount) return name;
  const scratch = `tether_migrating_${randomBytes(6).toString('hex')}`;
  const db = openDb(await createDatabase(server, scratch));
  try {
    await migrate(db, files);
  } finally {
    await db.close();
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(server, `ALTER DATABASE "${scratch}" RENAME TO "${name}"`);
      return name;
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === '42P04') {
        // duplicate_database: another process finished first.
        await adminQuery(server, `DROP DATABASE "${scratch}"`);
        return name;
      }
      // object_in_use: the closed pool's server session has not ended yet.
      if (code !== '55006' || attempt >= 50) throw err;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

async function adminQuery(server: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const stores = new WeakMap<Db, Store>();

/**
 * The Store over a test database: one per database, so a test file builds one Prisma Client, not one per call.
 * Closing the database (`db.close()`) is still the test's job.
 */
export function storeFor(db: Db): Store {
  let store = stores.get(db);
  if (!store) {
    store = new Store(db);
    stores.set(db, store);
  }
  return store;
}
