// The shared database fixtures (./database-test.ts) plus `as`: the console's tRPC procedures called as an actor over
// the file's services, the way the console calls them (`createCaller` with source `console`), and the stored people and
// tokens its reads name.
//
//   import { describe, expect, it } from '../../support/console-test';
//   it('lists', async ({ ws, as }) => { await as(viewer).console.tasks({ workspace_id: ws.id }); });
import { randomBytes, randomUUID } from 'node:crypto';
import type { Actor, Role } from '../../src/server/domain/access';
import { createContextInner } from '../../src/server/api/context';
import { appRouter } from '../../src/server/api/root';
import { createCallerFactory } from '../../src/server/api/trpc';
import type { Db } from '../../src/server/db/types';
import { it as base } from './database-test';
import { uniq } from './fixtures';

const createCaller = createCallerFactory(appRouter);

/** The console's procedures, called as one actor. */
export type ConsoleCaller = ReturnType<typeof createCaller>;

export const it = base.extend(
  'as',
  { scope: 'file' },
  async ({ services }) =>
    (actor: Actor): ConsoleCaller =>
      createCaller(createContextInner({ services, actor, source: 'console' })),
);

export const test = it;
export { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf } from './database-test';

/** A person stored as a user row (a new email) with `role` on the workspace, and the actor they act as. */
export async function storedMember(db: Db, workspaceId: string, role: Role): Promise<Actor> {
  const id = randomUUID();
  const email = `${uniq('op')}@example.test`;
  const now = new Date().toISOString();
  await db.run(
    'INSERT INTO users (id, email, name, password_hash, is_admin, created_at) VALUES ($1, $2, NULL, NULL, $3, $4)',
    [id, email, false, now],
  );
  await db.run('INSERT INTO memberships (user_id, workspace_id, role, created_at) VALUES ($1, $2, $3, $4)', [
    id,
    workspaceId,
    role,
    now,
  ]);
  return {
    kind: 'user',
    id,
    label: email,
    global: false,
    roles: new Map([[workspaceId, role]]),
    grants: new Set(),
    scopes: new Set(),
  };
}

/** A token stored as a row named `name`, granted on the workspace to write tasks and release ids, as an actor. */
export async function storedToken(db: Db, workspaceId: string, name: string): Promise<Actor> {
  const id = randomUUID();
  const scopes = ['tasks:write', 'identities:release'] as const;
  await db.run(
    'INSERT INTO api_tokens (id, name, secret_hash, scopes, created_by, created_at) VALUES ($1, $2, $3, $4, NULL, $5)',
    [id, name, randomBytes(32).toString('hex'), JSON.stringify(scopes), new Date().toISOString()],
  );
  return {
    kind: 'token',
    id,
    label: name,
    global: false,
    roles: new Map(),
    grants: new Set([workspaceId]),
    scopes: new Set(scopes),
  };
}
