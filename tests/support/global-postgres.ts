// Vitest global setup for the `postgres` project: one throwaway server for the run; each test file
// creates its own database on it (tests/support/db.ts).
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres-server';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await startPostgres();
  project.provide('pgUrl', server.url);
  return () => server.stop();
}
