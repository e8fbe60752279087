// For teams with the Prisma CLI (SPEC §12): `npx prisma migrate status --config prisma/postgres/prisma.config.ts`
// (or `deploy`, `diff`, `studio`) against DATABASE_URL. Tether itself does not need it: its runner
// (src/server/db/schema/migrate.ts) applies the same folder and writes the same `_prisma_migrations` rows.
// Paths are relative to this file. Not at the project root on purpose: the CLI would load it for every
// command, and `npm run db:generate` must not need a DATABASE_URL.
import { defineConfig, env } from 'prisma/config';

export default defineConfig({
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  datasource: { url: env('DATABASE_URL') },
});
