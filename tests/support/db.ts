// A fresh, migrated database per test file, on the dialect of the running vitest project.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openDb } from '../../src/server/db/drivers';
import { migrate } from '../../src/server/db/schema/migrate';
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

/** Opens a new database with every migration applied. */
export async function freshDb(): Promise<Db> {
  const db = await emptyDb();
  await migrate(db);
  return db;
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
