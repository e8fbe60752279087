// A fresh, migrated database per test file, on the dialect of the running vitest project.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { openDb } from '../../src/server/db/dialect';
import { migrate } from '../../src/server/db/migrate';
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
