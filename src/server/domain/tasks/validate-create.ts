// SPEC §4.1 step 6: validation that needs the database, done only after a lookup miss.
import type { Db } from '../../db/types';
import { strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from './create-input';

export interface CreateTarget {
  stepId: string;
  /** The workspace's working-folder root (SPEC §5 `workspace_attachment`), read in the same statement. */
  rootPath: string | null;
  /** The step has a WIP limit: Begin must count under the workspace lock (SPEC §4.1 step 7). */
  wipLimited: boolean;
}

export async function validateCreate(
  db: Db,
  workspaceId: string,
  parentId: string | null,
  fields: TCreateTaskFields,
): Promise<CreateTarget> {
  // One statement: the workspace, its root and the requested (or first) step with its WIP limit.
  const ws = await db.one<{ root_path: unknown; step_id: unknown; wip_limit: unknown }>(
    fields.step_id
      ? `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
         LEFT JOIN workflow_steps s ON s.id = $2 AND s.workspace_id = w.id WHERE w.id = $1`
      : `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
         LEFT JOIN workflow_steps s ON s.id = (SELECT id FROM workflow_steps WHERE workspace_id = $1 ORDER BY position LIMIT 1)
         WHERE w.id = $1`,
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
  return { stepId, rootPath: strOrNull(ws.root_path), wipLimited: ws.wip_limit !== null && ws.wip_limit !== undefined };
}
