// SPEC §4.1 step 6: validation that needs the database, done only after a lookup miss.
import type { Db } from '../../db/types';
import { str } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from './create-input';

export interface CreateTarget {
  stepId: string;
}

export async function validateCreate(
  db: Db,
  workspaceId: string,
  parentId: string | null,
  fields: TCreateTaskFields,
): Promise<CreateTarget> {
  const ws = await db.one('SELECT id FROM workspaces WHERE id = $1', [workspaceId]);
  // A global actor naming a workspace that does not exist gets the same 404 as anyone else.
  if (!ws) throw new DomainError('task_not_created');

  let stepId: string;
  if (fields.step_id) {
    const step = await db.one('SELECT id FROM workflow_steps WHERE id = $1 AND workspace_id = $2', [fields.step_id, workspaceId]);
    if (!step) throw new DomainError('validation_failed', 'step_id: workflow step not found in this workspace');
    stepId = fields.step_id;
  } else {
    const first = await db.one<{ id: unknown }>(
      'SELECT id FROM workflow_steps WHERE workspace_id = $1 ORDER BY position LIMIT 1',
      [workspaceId],
    );
    if (!first) throw new DomainError('validation_failed', 'workspace has no workflow steps');
    stepId = str(first.id);
  }

  if (parentId) {
    const parent = await db.one('SELECT id FROM tasks WHERE id = $1 AND workspace_id = $2', [parentId, workspaceId]);
    if (!parent) throw new DomainError('validation_failed', 'parent_id: parent task not found in this workspace');
  }
  return { stepId };
}
