// A separate process that migrates one database: `node --import tsx migrate-child.ts <url> <startAtMs> [migrationsDir]`.
// Waits until startAtMs so sibling processes start migrating at the same moment, then prints the result as JSON.
import { openDb } from '../../../src/server/db/drivers';
import { migrate, readMigrations } from '../../../src/server/db/schema/migrate';

const [url, startAt, dir] = process.argv.slice(2) as [string, string, string | undefined];
const db = openDb(url);
try {
  const files = readMigrations(db.dialect, dir);
  await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
  const result = await migrate(db, files);
  process.stdout.write(JSON.stringify({ applied: result.applied, version: result.version }));
} catch (err) {
  process.stdout.write(JSON.stringify({ error: (err as Error).message }));
  process.exitCode = 1;
} finally {
  await db.close();
}
