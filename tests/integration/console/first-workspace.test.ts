// First run: right after setup the only admin has no workspace; the console must let them create one and
// its first token (SPEC §11: the token is shown once, by create). Only an instance admin may create a workspace;
// a refused or invalid request creates nothing.
import { completeSetup, issueSetupToken } from '../../../src/server/domain/users/setup';
import { describe, expect, it as base } from '../../support/console-test';
import { count, makeWorkspace, uniq, userActor } from '../../support/fixtures';

// The instance's first admin, made by setup, and how many workspaces there are.
const it = base
  .extend('admin', { scope: 'file' }, async ({ services }) => {
    const token = (await issueSetupToken(services.store))!;
    const user = await completeSetup(services.store, {
      token,
      email: `${uniq('root-')}@example.test`,
      password: 'long enough',
    });
    return { ...userActor({}, true), id: user.id, label: user.email };
  })
  .extend(
    'workspaces',
    { scope: 'file' },
    async ({ db }) =>
      () =>
        count(db, 'SELECT COUNT(*) AS n FROM workspaces'),
  );

describe('workspace.create (first run)', () => {
  it('the first admin creates a workspace with the default workflow, then its first token, shown once', async ({
    db,
    admin,
    as,
  }) => {
    const prefix = uniq('W').slice(0, 8).toUpperCase();
    const created = await as(admin).workspace.create({ name: 'Operations', prefix });
    expect(created).toEqual({ id: expect.any(String), name: 'Operations', prefix });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workflow_steps WHERE workspace_id = $1', [created.id])).toBe(3);
    expect((await as(admin).workspace.list()).map((w) => w.id)).toContain(created.id);

    const token = await as(admin).admin.createToken({
      workspace_id: created.id,
      name: 'first',
      scopes: ['tasks:write'],
    });
    expect(token.token).toEqual(expect.any(String));
    const listed = await as(admin).admin.tokens({ workspace_id: created.id });
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(token.token);
  });

  it('refuses anyone who is not an instance admin, even a workspace admin, and creates nothing', async ({
    db,
    as,
    workspaces,
  }) => {
    const ws = await makeWorkspace(db);
    const before = await workspaces();
    await expect(
      as(userActor({ [ws.id]: 'admin' })).workspace.create({ name: 'Mine', prefix: 'MINE' }),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await workspaces()).toBe(before);
  });

  it('a bad prefix or a prefix in use is a clear error and creates nothing', async ({ admin, as, workspaces }) => {
    const before = await workspaces();
    await expect(as(admin).workspace.create({ name: 'Lower', prefix: 'ops' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('prefix'),
    });
    const taken = (await as(admin).workspace.create({ name: 'One', prefix: uniq('T').slice(0, 8).toUpperCase() }))
      .prefix;
    await expect(as(admin).workspace.create({ name: 'Two', prefix: taken })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('in use'),
    });
    expect(await workspaces()).toBe(before + 1);
  });
});
