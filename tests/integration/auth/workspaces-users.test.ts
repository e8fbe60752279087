// The admin domain behind the CLI: workspaces with default steps (SPEC §1), step append, users and roles (SPEC §11).
import { checkUserPassword } from '../../../src/server/domain/users/check-password';
import { createUser } from '../../../src/server/domain/users/create-user';
import { listMembers, setMembership } from '../../../src/server/domain/users/memberships';
import { createWorkspace } from '../../../src/server/domain/workspaces/create-workspace';
import { listWorkspaces } from '../../../src/server/domain/workspaces/list-workspaces';
import { createStep, listSteps } from '../../../src/server/domain/workspaces/steps';
import { describe, expect, it } from '../../support/database-test';
import { count, uniq } from '../../support/fixtures';

const prefix = () => uniq('P').toUpperCase().slice(0, 9);

describe('workspaces and steps (SPEC §1)', () => {
  it('creates a workspace with Todo, Doing and Done (done) steps', async ({ store }) => {
    const w = await createWorkspace(store, { name: 'Ops', prefix: prefix() });
    expect((await listSteps(store, w.id)).map((s) => [s.name, s.position, s.isDone])).toEqual([
      ['Todo', 0, false],
      ['Doing', 1, false],
      ['Done', 2, true],
    ]);
    expect((await listWorkspaces(store)).map((x) => x.id)).toContain(w.id);
  });

  it('refuses a prefix that is taken, leaving no partial workspace behind', async ({ db, store }) => {
    const p = prefix();
    await createWorkspace(store, { name: 'One', prefix: p });
    await expect(createWorkspace(store, { name: 'Two', prefix: p })).rejects.toThrow(
      `workspace prefix ${p} is already in use`,
    );
    expect(await count(db, 'SELECT COUNT(*) AS n FROM workspaces WHERE prefix = $1', [p])).toBe(1);
  });

  it('refuses malformed prefixes', async ({ store }) => {
    for (const bad of ['', 'ops', 'OPS-1', 'ABCDEFGHIJK', 'ÖPS']) {
      await expect(createWorkspace(store, { name: 'X', prefix: bad })).rejects.toThrow(/prefix must be/);
    }
  });

  it('appends steps at the next position with their WIP limit', async ({ store }) => {
    const w = await createWorkspace(store, { name: 'Ops', prefix: prefix() });
    const s = await createStep(store, { workspaceId: w.id, name: 'Review', wipLimit: 2 });
    expect([s.position, s.wipLimit, s.isDone]).toEqual([3, 2, false]);
  });

  it('gives concurrent appends distinct positions', async ({ store }) => {
    const w = await createWorkspace(store, { name: 'Ops', prefix: prefix() });
    await Promise.all(['A', 'B', 'C', 'D'].map((name) => createStep(store, { workspaceId: w.id, name })));
    expect((await listSteps(store, w.id)).map((s) => s.position)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses a step for a missing workspace', async ({ store }) => {
    await expect(createStep(store, { workspaceId: 'missing', name: 'X' })).rejects.toThrow(/not found/);
  });
});

describe('users (SPEC §11)', () => {
  it('makes an admin without workspaces an instance-wide admin', async ({ store }) => {
    const u = await createUser(store, { email: `${uniq()}@example.com`, role: 'admin' });
    expect(u.isAdmin).toBe(true);
    expect(u.memberships).toEqual([]);
  });

  it('gives an operator a membership in each workspace, not the admin flag', async ({ store, ws }) => {
    const u = await createUser(store, { email: `${uniq()}@example.com`, role: 'operator', workspaceIds: [ws.id] });
    expect(u.isAdmin).toBe(false);
    expect(await listMembers(store, ws.id)).toContainEqual({ userId: u.id, email: u.email, role: 'operator' });
  });

  it('refuses a viewer without a workspace', async ({ store }) => {
    await expect(createUser(store, { email: `${uniq()}@example.com`, role: 'viewer' })).rejects.toThrow(
      /needs at least one workspace/,
    );
  });

  it('stores emails lower-case and refuses the same address in another case', async ({ store }) => {
    const local = uniq('Mixed');
    const u = await createUser(store, { email: `  ${local}@Example.COM `, role: 'admin' });
    expect(u.email).toBe(`${local.toLowerCase()}@example.com`);
    await expect(createUser(store, { email: `${local.toUpperCase()}@example.com`, role: 'admin' })).rejects.toThrow(
      /already exists/,
    );
  });

  it('checks the password it was created with, and nothing else', async ({ store, ws }) => {
    const email = `${uniq()}@example.com`;
    const u = await createUser(store, { email, role: 'viewer', workspaceIds: [ws.id], password: 'long enough secret' });
    expect((await checkUserPassword(store, email.toUpperCase(), 'long enough secret'))?.id).toBe(u.id);
    expect(await checkUserPassword(store, email, 'long enough secreT')).toBeNull();
    expect(await checkUserPassword(store, `nobody-${email}`, 'long enough secret')).toBeNull();
  });

  it('changes and removes a membership', async ({ store, ws }) => {
    const u = await createUser(store, { email: `${uniq()}@example.com`, role: 'viewer', workspaceIds: [ws.id] });
    await setMembership(store, { userId: u.id, workspaceId: ws.id, role: 'admin' });
    expect((await listMembers(store, ws.id)).find((m) => m.userId === u.id)?.role).toBe('admin');
    await setMembership(store, { userId: u.id, workspaceId: ws.id, role: null });
    expect((await listMembers(store, ws.id)).find((m) => m.userId === u.id)).toBeUndefined();
  });
});
