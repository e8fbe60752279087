// Prisma Client is built on first use (db/prisma/): a server process that only starts and answers the API's hot
// paths never loads it. Loaded, it is ~100 MB of a server's peak memory and it made every Found dearer (the
// bench measured peak RSS ~300 MB against ~200 MB without it; docs/BENCHMARKS.md). So the start-up check for
// first-run setup and the hot paths (token authentication, create, Found, lookup, health) run on the driver, and a
// cold path (here: the console's own read of users) still builds Prisma Client when it is needed.
import { Store } from '../../../src/server/db/store';
import { createUser } from '../../../src/server/domain/users/create-user';
import { issueSetupToken } from '../../../src/server/domain/users/setup';
import { describe, expect, it } from '../../support/database-test';
import { count } from '../../support/fixtures';
import { call, trpc, useApiWorld, type ApiWorld } from '../../support/http';

describe('first-run setup at server start', () => {
  it('issues the setup token, and later finds users, without building Prisma Client', async ({ db }) => {
    const atFirstStart = new Store(db);
    expect(await issueSetupToken(atFirstStart)).toEqual(expect.any(String));
    expect(await issueSetupToken(atFirstStart)).toEqual(expect.any(String)); // a restart: the newest token replaces it
    expect(await count(db, 'SELECT COUNT(*) AS n FROM setup_tokens WHERE used_at IS NULL')).toBe(1);
    expect(atFirstStart.prismaLoaded).toBe(false);

    const admin = new Store(db);
    await createUser(admin, { email: 'first@example.test', role: 'admin' }); // a cold path: Prisma Client
    expect(admin.prismaLoaded).toBe(true);

    const atNextStart = new Store(db);
    expect(await issueSetupToken(atNextStart)).toBeNull();
    expect(atNextStart.prismaLoaded).toBe(false);
  });
});

describe('the API hot paths', () => {
  // The workspace and token are made through the test's own store, not the server's.
  let world: ApiWorld;
  useApiWorld((w) => (world = w));

  it('authenticate, create, find, look up and answer health without building Prisma Client', async () => {
    const { api, ws, token } = world;
    const body = { workspace_id: ws.id, external_id: 'on-demand-1', title: 'hot path' };
    const created = await call(api.url, 'POST', '/api/v1/tasks', { token, body });
    expect(created.json).toMatchObject({ deduplicated: false });
    const found = await call(api.url, 'POST', '/api/v1/tasks', { token, body });
    expect(found.json).toMatchObject({ deduplicated: true, creation_complete: true });
    const viaTrpc = await trpc(api.url, 'mutation', 'task.create', body, token);
    expect(viaTrpc.status).toBe(200);
    const lookup = await call(
      api.url,
      'GET',
      `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=on-demand-1`,
      { token },
    );
    expect(lookup.status).toBe(200);
    expect((await call(api.url, 'GET', '/api/health')).status).toBe(200);
    expect(api.services.store.prismaLoaded).toBe(false);

    // A cold path on the same server does build it (the flag is not stuck at false).
    const members = await trpc(api.url, 'query', 'workspace.list', undefined, token);
    expect(members.status).toBe(200);
    expect(api.services.store.prismaLoaded).toBe(true);
  });
});
