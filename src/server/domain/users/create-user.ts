// Creates a console user (SPEC §11). `admin` without workspaces is the instance-wide admin; any other
// combination is a membership with that role in each listed workspace.
import { randomUUID } from 'node:crypto';
import { ROLES, type Role } from '../../auth/actor';
import { hashPassword } from '../../auth/password';
import type { Db } from '../../db/types';
import { DomainError } from '../errors/domain-error';
import { isUniqueViolationOf } from '../workspaces/unique-violation';
import type { User } from './user';
import { normalizeEmail } from './user';

export interface CreateUserInput {
  email: string;
  /** Absent: the user cannot sign in until a password is set. */
  password?: string | null;
  role: Role;
  workspaceIds?: readonly string[];
  name?: string | null;
}

export const MIN_PASSWORD_LENGTH = 8;

export async function createUser(db: Db, input: CreateUserInput): Promise<User & { memberships: Array<{ workspaceId: string; role: Role }> }> {
  const email = normalizeEmail(input.email);
  if (!ROLES.includes(input.role)) throw new DomainError('validation_failed', `role must be one of ${ROLES.join(', ')}`);
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
  try {
    await db.transaction(async (tx) => {
      for (const workspaceId of workspaceIds) {
        if (!(await tx.one('SELECT id FROM workspaces WHERE id = $1', [workspaceId]))) throw new DomainError('not_found', `workspace ${workspaceId}`);
      }
      await tx.run('INSERT INTO users (id, email, name, password_hash, is_admin, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
        user.id,
        user.email,
        user.name,
        passwordHash,
        user.isAdmin,
        user.createdAt,
      ]);
      for (const workspaceId of workspaceIds) {
        await tx.run('INSERT INTO memberships (user_id, workspace_id, role, created_at) VALUES ($1, $2, $3, $4)', [
          user.id,
          workspaceId,
          input.role,
          user.createdAt,
        ]);
      }
    });
  } catch (err) {
    if (isUniqueViolationOf(err, 'uniq_users_email', 'users.email')) throw new DomainError('conflict', `a user with email ${email} already exists`);
    throw err;
  }
  return { ...user, memberships: workspaceIds.map((workspaceId) => ({ workspaceId, role: input.role })) };
}
