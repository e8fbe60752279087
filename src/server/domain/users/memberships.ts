// Workspace roles (SPEC §11: viewer, operator, admin; membership per workspace).
import type { Role } from '../access';
import { ROLES } from '../access';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { createUser } from './create-user';
import { normalizeEmail, type Member } from './user';

export type { Member } from './user';

type UserStore = Pick<Repositories, 'users'>;

/** Gives `userId` the role in the workspace, replacing any previous one; `role: null` removes the membership. */
export async function setMembership(
  store: UserStore,
  input: { userId: string; workspaceId: string; role: Role | null },
): Promise<void> {
  if (input.role === null) {
    await store.users.removeMembership(input.userId, input.workspaceId);
    return;
  }
  if (!ROLES.includes(input.role))
    throw new DomainError('validation_failed', `role must be one of ${ROLES.join(', ')}`);
  const result = await store.users.setMembership(input.userId, input.workspaceId, input.role, new Date().toISOString());
  if (result === 'no_user') throw new DomainError('not_found', `user ${input.userId}`);
  if (result === 'no_workspace') throw new DomainError('not_found', `workspace ${input.workspaceId}`);
}

export function listMembers(store: UserStore, workspaceId: string): Promise<Member[]> {
  return store.users.listMembers(workspaceId);
}

/** The admin page's "add member": gives an existing user (by email) the role, or creates the user with it. */
export async function addMember(
  store: UserStore,
  input: { workspaceId: string; email: string; role: Role; password?: string | null },
): Promise<void> {
  const existing = await store.users.findByEmail(normalizeEmail(input.email));
  if (existing) await setMembership(store, { userId: existing.id, workspaceId: input.workspaceId, role: input.role });
  else
    await createUser(store, {
      email: input.email,
      role: input.role,
      workspaceIds: [input.workspaceId],
      password: input.password || null,
    });
}
