// First run: right after setup the only admin has no workspace; the console must let them create one and
// its first token (SPEC §11: the token is shown once, by create). Only an instance admin may create a workspace;
// a refused or invalid request creates nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/server/domain/access';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import type { Db } from '../../../src/server/db/types';
import { completeSetup, issueSetupToken } from '../../../src/server/domain/users/setup';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, testServices, uniq, userActor } from '../../support/fixtures';

const createCaller = createCallerFactory(appRouter);

let db: Db;
let services: Services;
let admin: Actor;

beforeAll(async () => {
  db = await freshDb();
  services = await testServices(db);
  const token = (await issueSetupToken(services.store))!;
  const user = await completeSetup(services.store, {
    token,
    email: `${uniq('root-')}@example.test`,
    password: 'long enough',
  });
  admin = { ...userActor({}, true), id: user.id, label: user.email };
});
afterAll(async () => db?.close());

const caller = (actor: Actor) => createCaller(createContextInner({ services, actor, source: 'console' }));
const workspaces = () => count(db, 'SELECT COUNT(*) AS n FROM workspaces');

describe('workspace.create (first run)', () => {
  it('the first admin creates a workspace with the default workflow, then its first token, shown once', async () => {
    const prefix = uniq('W').slice(0, 8).toUpperCase();
    const created = await caller(admin).workspace.create({ name: 'Operations', prefix });
    expect(created).toEqual({ id: expect.any(String), name: 'Operations', prefix });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workflow_steps WHERE workspace_id = $1', [created.id])).toBe(3);
    expect((await caller(admin).workspace.list()).map((w) => w.id)).toContain(created.id);

    const token = await caller(admin).admin.createToken({
      workspace_id: created.id,
      name: 'first',
      scopes: ['tasks:write'],
    });
    expect(token.token).toEqual(expect.any(String));
    const listed = await caller(admin).admin.tokens({ workspace_id: created.id });
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(token.token);
  });

  it('refuses anyone who is not an instance admin, even a workspace admin, and creates nothing', async () => {
    const ws = await makeWorkspace(db);
    const before = await workspaces();
    await expect(
      caller(userActor({ [ws.id]: 'admin' })).workspace.create({ name: 'Mine', prefix: 'MINE' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await workspaces()).toBe(before);
  });

  it('a bad prefix or a prefix in use is a clear error and creates nothing', async () => {
    const before = await workspaces();
    await expect(caller(admin).workspace.create({ name: 'Lower', prefix: 'ops' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('prefix'),
    });
    const taken = (await caller(admin).workspace.create({ name: 'One', prefix: uniq('T').slice(0, 8).toUpperCase() }))
      .prefix;
    await expect(caller(admin).workspace.create({ name: 'Two', prefix: taken })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('in use'),
    });
    expect(await workspaces()).toBe(before + 1);
  });
});
