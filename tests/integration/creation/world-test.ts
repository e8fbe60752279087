// The shared database fixtures (tests/support/database-test.ts) for the creation tests: `services` with a data
// directory of the file's own (uploads land there) and failpoints on, and `w`, a workspace with a working-folder root,
// a real git repository and an agent profile (./world.ts). Both file-scoped, like the fixtures they build on.
//
//   import { describe, expect, it } from './world-test';
//   it('creates', async ({ services, w }) => { await createTask(services, w.actor, { workspace_id: w.ws.id, … }); });
import { loadConfig } from '../../../src/server/config';
import { it as base } from '../../support/database-test';
import { testServices } from '../../support/fixtures';
import { dataDir, makeWorld } from './world';

export const it = base
  .extend('services', { scope: 'file' }, async ({ db }, { onCleanup }) => {
    const services = await testServices(db, {
      config: { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() },
    });
    onCleanup(() => services.store.close());
    return services;
  })
  .extend('w', { scope: 'file' }, async ({ services }) => makeWorld(services));

export const test = it;
export {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  expectTypeOf,
} from '../../support/database-test';
