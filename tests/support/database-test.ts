// The set-up domain-level integration tests share, as vitest fixtures: a fresh migrated database on the running
// project's dialect (tests/support/db.ts), services over it (attested, failpoints on), the bare store, and two workspaces with the
// default steps (`ws`, and `other` for tests about a workspace the caller cannot reach). Each is file-scoped: built
// once, for the first test in the file that asks for it, and closed after the file's last test. Tests in one file share
// them, so they use unique external ids and names (`uniq`).
//
//   import { describe, expect, it } from '../../support/database-test';
//   it('creates', async ({ services, ws }) => { … });
//
// A file whose helpers need the same objects extends `it` with file-scoped fixtures of its own (`it.extend(…)`).
import { test as base } from 'vitest';
import { freshDb, storeFor } from './db';
import { makeWorkspace, testServices } from './fixtures';

export const it = base
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern; none here
  .extend('db', { scope: 'file' }, async ({}, { onCleanup }) => {
    const db = await freshDb();
    onCleanup(() => db.close());
    return db;
  })
  .extend('services', { scope: 'file' }, async ({ db }, { onCleanup }) => {
    const services = await testServices(db);
    // The store's Prisma Client, if a test used one, is disconnected with the database.
    onCleanup(() => services.store.close());
    return services;
  })
  // The data layer alone over the database (storeFor), for tests below the services.
  .extend('store', { scope: 'file' }, async ({ db }, { onCleanup }) => {
    const store = storeFor(db);
    onCleanup(() => store.close());
    return store;
  })
  .extend('ws', { scope: 'file' }, async ({ db }) => makeWorkspace(db))
  .extend('other', { scope: 'file' }, async ({ db }) => makeWorkspace(db));

export const test = it;
export { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf } from 'vitest';
