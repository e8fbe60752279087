// Generates the two Prisma clients (one per dialect) without downloading anything. First the SQLite schema is
// rewritten from the PostgreSQL one, the schema of record (scripts/prisma-schemas.mjs, SPEC §12).
// `prisma generate` only needs a schema-engine path to exist; generation itself uses no engine,
// so we point PRISMA_SCHEMA_ENGINE_BINARY at an existing executable (see README, "Offline install").
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeSqliteSchema } from './prisma-schemas.mjs';

if (writeSqliteSchema()) console.log('prisma/sqlite/schema.prisma regenerated from prisma/postgres/schema.prisma');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY)
  env.PRISMA_SCHEMA_ENGINE_BINARY = existsSync('/bin/true') ? '/bin/true' : process.execPath;

for (const schema of ['prisma/sqlite/schema.prisma', 'prisma/postgres/schema.prisma']) {
  if (!existsSync(schema)) continue;
  const r = spawnSync('npx', ['prisma', 'generate', '--schema', schema], { stdio: 'inherit', env });
  if (r.status !== 0) {
    console.error(`prisma generate failed for ${schema}`);
    process.exit(r.status ?? 1);
  }
}
