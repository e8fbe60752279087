// For bench/compare.ts: migrates and seeds a database through the code of ANOTHER checkout (its own migrations, its own
// bench/lib/seed.ts), so each side of a comparison runs on the schema and data its server expects. `tsx
// bench/lib/compare-seed.ts <checkout> <database url> <tasks>` prints `{"token","workspaceId"}` as its last line. An
// older checkout may have no Store: its services then live in src/server/services.ts and expose `db`.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, databaseUrl, tasks] = process.argv.slice(2) as [string, string, string];
const load = (file: string) => import(pathToFileURL(resolve(root, file)).href);

const { loadConfig } = await load('src/server/config.ts');
// Where createServices lives moved over time: create-services.ts now (and in the oldest checkouts), app.ts or
// services.ts in others.
const servicesModule =
  ['src/server/create-services.ts', 'src/server/app.ts'].find((f) => existsSync(resolve(root, f))) ??
  'src/server/services.ts';
const { createServices } = await load(servicesModule);
// The migrator moved too: db/schema/migrate.ts now, db/migrate.ts in older checkouts.
const migrateModule =
  ['src/server/db/schema/migrate.ts'].find((f) => existsSync(resolve(root, f))) ?? 'src/server/db/migrate.ts';
const { migrate } = await load(migrateModule);
const { seed, bulkLoad } = await load('bench/lib/seed.ts');

const services = createServices({ config: { ...loadConfig(), databaseUrl, failpointsEnabled: false } });
const db = services.store?.driver ?? services.db;
await migrate(db);
await services.readiness?.refresh?.(db); // as each checkout's own bench does before seeding
const seeded = await seed(db);
await bulkLoad(db, seeded.main, Number(tasks));
console.log(JSON.stringify({ token: seeded.token, workspaceId: seeded.main.id }));
process.exit(0);
