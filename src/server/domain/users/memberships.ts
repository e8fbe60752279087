// Workspace roles (SPEC §11: viewer, operator, admin; membership per workspace).
import type { Role } from '../../auth/actor';
import { ROLES } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { str } from '../../db/values';
import { DomainError } from '../errors/domain-error';

export interface Member {
  userId: string;
  email: string;
  role: Role;
}

/** Gives `userId` the role in the workspace, replacing any previous one; `role: null` removes the membership. */
export async function setMembership(db: Sql, input: { userId: string; workspaceId: string; role: Role | null }): Promise<void> {
  if (input.role === null) {
    await db.run('DELETE FROM memberships WHERE user_id = $1 AND workspace_id = $2', [input.userId, input.workspaceId]);
    return;
  }
  if (!ROLES.includes(input.role)) throw new DomainError('validation_failed', `role must be one of ${ROLES.join(', ')}`);
  if (!(await db.one('SELECT id FROM users WHERE id = $1', [input.userId]))) throw new DomainError('not_found', `user ${input.userId}`);
  if (!(await db.one('SELECT id FROM workspaces WHERE id = $1', [input.workspaceId]))) throw new DomainError('not_found', `workspace ${input.workspaceId}`);
  await db.run(
    `INSERT INTO memberships (user_id, workspace_id, role, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, workspace_id) DO UPDATE SET role = excluded.role`,
    [input.userId, input.workspaceId, input.role, new Date().toISOString()],
  );
}

export async function listMembers(db: Sql, workspaceId: string): Promise<Member[]> {
  const rows = await db.query(
    'SELECT m.user_id, u.email, m.role FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 ORDER BY u.email',
    [workspaceId],
  );
  return rows.map((r) => ({ userId: str(r.user_id), email: str(r.email), role: str(r.role) as Role }));
}
