// Tests of the BUILT app (Next in the loop, started as an operator starts it): they run when `.next` exists (always
// under `npm test`, which builds first, and always in CI) and once — in the sqlite project.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startApp, type AppProcess } from '../../bench/lib/server';
import { freshDatabaseUrl, testDialect } from './db';

const built = existsSync(resolve(import.meta.dirname, '../../.next/BUILD_ID'));

/** Whether this project runs the built-app tests (`describe.runIf(runBuiltApp)`). */
export const runBuiltApp = (built || Boolean(process.env.CI)) && testDialect() === 'sqlite';

/** One built app over a fresh database for the enclosing describe block: started before its tests, stopped after. */
export function useBuiltApp(): () => AppProcess {
  let app: AppProcess | undefined;
  beforeAll(async () => {
    app = await startApp(await freshDatabaseUrl());
  }, 120_000);
  afterAll(async () => app?.stop());
  return () => app!;
}
