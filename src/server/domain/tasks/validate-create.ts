// SPEC §4.1 step 6: validation that needs the database, done only after a lookup miss.
import type { Store } from '../../db/store';
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
  store: Store,
  workspaceId: string,
  parentId: string | null,
  fields: TCreateTaskFields,
): Promise<CreateTarget> {
  const target = await store.workspaces.createTarget(workspaceId, fields.step_id ?? null);
  // A global actor naming a workspace that does not exist gets the same 404 as anyone else.
  if (!target) throw new DomainError('task_not_created');
  if (!target.stepId) {
    throw fields.step_id
      ? new DomainError('validation_failed', 'step_id: workflow step not found in this workspace')
      : new DomainError('validation_failed', 'workspace has no workflow steps');
  }
  if (parentId && !(await store.tasks.existsInWorkspace(parentId, workspaceId))) {
    throw new DomainError('validation_failed', 'parent_id: parent task not found in this workspace');
  }
  return { stepId: target.stepId, rootPath: target.rootPath, wipLimited: target.wipLimit !== null };
}
