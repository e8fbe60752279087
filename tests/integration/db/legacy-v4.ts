// A database as the runner before Prisma Migrate's layout left it ("schema v4"): the four numbered files applied
// in order, each recorded in its own `schema_migrations` table. The statements are those of
// src/server/db/migrate.ts at commit 3705e7d (the HISTORY DDL, the INSERT, sha256 of the file as checksum).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRISMA_DIR } from '../../../src/server/db/schema/migrate';
import { LEGACY_MIGRATIONS } from '../../../src/server/db/schema/migration-history';
import type { Db, Dialect } from '../../../src/server/db/types';

/** sha256 of each numbered file as it was committed before the move (git show 3705e7d:migrations/<dialect>/…). */
export const V4_CHECKSUMS: Record<Dialect, Record<string, string>> = {
  postgres: {
    '0001_init.sql': 'ee3657d9a695642a8449387ce28ba67c53f7435954c59b8b54a5fe17fa119342',
    '0002_events.sql': '113df5445b06c9b4a608a2ab576ce746b8ae0e1090ae1d68fa3d87dbe196c742',
    '0003_creation_effects.sql': 'a0b90f6109e344c3bb92be6fa6856d2bd74ca73c03265427a6ee7737b8661553',
    '0004_console.sql': 'bfe76762297db7dab5b711b9ad4afaf0b03736b3178baf1e1b2d620e52887473',
  },
  sqlite: {
    '0001_init.sql': '7457fb89e75bdfd692a53eb57673c6f12a362eda841257bb143b7a9d155beb65',
    '0002_events.sql': '0885f726d696ef9aba581cbcebd95f294d39990fe373cbc64d1781d5ef516cc6',
    '0003_creation_effects.sql': '6106d77e0f65d6466c802f245ab2307b3df8f3c9d77ece2ed2ef68c17cf8dca6',
    '0004_console.sql': 'b410b2beb86dcd57b9a236062cd6e1b5c9df5f16828fde43addee4c14a64eefd',
  },
};

/** The old file's text: the moved migration.sql, byte for byte. */
export function v4File(dialect: Dialect, name: string): string {
  return readFileSync(join(PRISMA_DIR, dialect, 'migrations', LEGACY_MIGRATIONS[name]!, 'migration.sql'), 'utf8');
}

const HISTORY = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at text NOT NULL)`;

/** Migrates an empty database to v4 the way the old runner did; returns the applied_at of each file. */
export async function migrateToV4(db: Db): Promise<Record<string, string>> {
  await db.exec(HISTORY);
  const appliedAt: Record<string, string> = {};
  for (const name of Object.keys(LEGACY_MIGRATIONS)) {
    const sql = v4File(db.dialect, name);
    const at = new Date().toISOString();
    // One transaction per file, as the old runner did (pg: one multi-statement query; SQLite: BEGIN IMMEDIATE).
    await db.exec(`${db.dialect === 'postgres' ? 'BEGIN' : 'BEGIN IMMEDIATE'};\n${sql}\nCOMMIT;`);
    await db.run('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [
      Number(name.slice(0, 4)),
      name,
      createHash('sha256').update(sql).digest('hex'),
      at,
    ]);
    appliedAt[name] = at;
  }
  return appliedAt;
}
