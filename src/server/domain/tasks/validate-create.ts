// SPEC §4.1 step 6: validation that needs the database, done only after a lookup miss.
import type { Db } from '../../db/types';
import { strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from './create-input';

export interface CreateTarget {
  stepId: string;
  /** The workspace's working-folder root (SPEC §5 `workspace_attachment`), read in the same statement. */
  rootPath: string | null;
}

export async function validateCreate(
  db: Db,
  workspaceId: string,
  parentId: string | null,
  fields: TCreateTaskFields,
): Promise<CreateTarget> {
  // One statement: the workspace, its root and the requested (or first) step.
  const ws = await db.one<{ root_path: unknown; step_id: unknown }>(
    fields.step_id
      ? 'SELECT root_path, (SELECT id FROM workflow_steps WHERE id = $2 AND workspace_id = $1) AS step_id FROM workspaces WHERE id = $1'
      : 'SELECT root_path, (SELECT id FROM workflow_steps WHERE workspace_id = $1 ORDER BY position LIMIT 1) AS step_id FROM workspaces WHERE id = $1',
    fields.step_id ? [workspaceId, fields.step_id] : [workspaceId],
  );
  // A global actor naming a workspace that does not exist gets the same 404 as anyone else.
  if (!ws) throw new DomainError('task_not_created');
  const stepId = strOrNull(ws.step_id);
  if (!stepId) {
    throw fields.step_id
      ? new DomainError('validation_failed', 'step_id: workflow step not found in this workspace')
      : new DomainError('validation_failed', 'workspace has no workflow steps');
  }

  if (parentId) {
    const parent = await db.one('SELECT id FROM tasks WHERE id = $1 AND workspace_id = $2', [parentId, workspaceId]);
    if (!parent) throw new DomainError('validation_failed', 'parent_id: parent task not found in this workspace');
  }
  return { stepId, rootPath: strOrNull(ws.root_path) };
}
