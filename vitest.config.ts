// Three projects: pure unit tests, and the integration suite run twice — once on SQLite, once on a real
// PostgreSQL server (TEST_DATABASE_URL, or a throwaway server started by tests/support/global-postgres.ts).
import { defineConfig } from 'vitest/config';

const integration = ['tests/integration/**/*.test.ts'];
// Every project runs several files to a worker process with their modules loaded once (`isolate: false`): loading the
// server's modules again for each file cost more than half of the suite's CPU (and half of the unit project's, whose
// tests take a few seconds in all). Each integration file still gets a database of its own; a file that changes the
// environment restores it after its tests (tests/support/file-env.ts). No test mocks a module; the one test with fake
// timers puts the real ones back.
const shared = { isolate: false };

export default defineConfig({
  test: {
    // Two cores: keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], ...shared, environment: 'node' } },
      {
        test: {
          name: 'sqlite',
          include: integration,
          ...shared,
          environment: 'node',
          env: { TETHER_TEST_DIALECT: 'sqlite' },
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'postgres',
          include: integration,
          ...shared,
          environment: 'node',
          env: { TETHER_TEST_DIALECT: 'postgres' },
          globalSetup: ['tests/support/global-postgres.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
