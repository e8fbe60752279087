// Three projects: pure unit tests, and the integration suite run twice — once on SQLite, once on a real
// PostgreSQL server (TEST_DATABASE_URL, or a throwaway server started by tests/support/global-postgres.ts).
import { defineConfig } from 'vitest/config';

const integration = ['tests/integration/**/*.test.ts'];

export default defineConfig({
  test: {
    // Two cores: keep parallelism modest.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'sqlite',
          include: integration,
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
