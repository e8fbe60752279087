// Throwaway Prisma Migrate folders for the migration runner tests: `<root>/<dialect>/migrations/<name>/migration.sql`.
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockfileText } from '../../../src/server/db/schema/migration-history';
import { testDialect } from '../../support/db';

const dialect = testDialect();

/** A throwaway Prisma folder: `{ '20240101000000_a': '…' }` → its root (readMigrations appends `<dialect>/migrations`). */
export function migrationsDir(files: Record<string, string>, lockfile = lockfileText(dialect)): string {
  const root = mkdtempSync(join(tmpdir(), 'tether-migrations-'));
  mkdirSync(join(root, dialect, 'migrations'), { recursive: true });
  writeFileSync(join(root, dialect, 'migrations', 'migration_lock.toml'), lockfile);
  for (const [name, sql] of Object.entries(files)) writeMigration(root, name, sql);
  return root;
}

export function writeMigration(root: string, name: string, sql: string): void {
  mkdirSync(join(root, dialect, 'migrations', name), { recursive: true });
  writeFileSync(join(root, dialect, 'migrations', name, 'migration.sql'), sql);
}
