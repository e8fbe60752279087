// Creates a console user (SPEC §11). `admin` without workspaces is the instance-wide admin; any other
// combination is a membership with that role in each listed workspace.
import { randomUUID } from 'node:crypto';
import { ROLES, type Role } from '../access';
import { hashPassword } from '../../auth/password';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { isUniqueViolationOf } from '../workspaces/unique-violation';
import { normalizeEmail, type User } from './user';

export interface CreateUserInput {
  email: string;
  /** Absent: the user cannot sign in until a password is set. */
  password?: string | null;
  role: Role;
  workspaceIds?: readonly string[];
  name?: string | null;
}

export const MIN_PASSWORD_LENGTH = 8;

export async function createUser(
  store: Pick<Repositories, 'users'>,
  input: CreateUserInput,
): Promise<User & { memberships: Array<{ workspaceId: string; role: Role }> }> {
  const email = normalizeEmail(input.email);
  if (!ROLES.includes(input.role))
    throw new DomainError('validation_failed', `role must be one of ${ROLES.join(', ')}`);
  const workspaceIds = [...new Set(input.workspaceIds ?? [])];
  if (input.role !== 'admin' && workspaceIds.length === 0) {
    throw new DomainError('validation_failed', `a ${input.role} needs at least one workspace`);
  }
  if (input.password != null && [...input.password].length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  // Hashing is deliberately slow: do it before taking the write transaction.
  const passwordHash = input.password != null ? await hashPassword(input.password) : null;
  const user: User = {
    id: randomUUID(),
    email,
    name: input.name?.trim() || null,
    isAdmin: input.role === 'admin' && workspaceIds.length === 0,
    createdAt: new Date().toISOString(),
  };
  let missingWorkspaceId: string | undefined;
  try {
    ({ missingWorkspaceId } = await store.users.insert(user, passwordHash, input.role, workspaceIds));
  } catch (err) {
    // STYLE habit 8: uniq_users_email decides; the violation is named here (PostgreSQL: the index, SQLite: the column).
    if (isUniqueViolationOf(err, 'uniq_users_email', 'users.email'))
      throw new DomainError('conflict', `a user with email ${email} already exists`);
    throw err;
  }
  if (missingWorkspaceId !== undefined) throw new DomainError('not_found', `workspace ${missingWorkspaceId}`);
  return { ...user, memberships: workspaceIds.map((workspaceId) => ({ workspaceId, role: input.role })) };
}
