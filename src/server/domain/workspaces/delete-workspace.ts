// SPEC §8: workspace deletion. One transaction: every task goes through the task aggregate's own delete
// (`deleteTaskIn`: a final revision and `task.deleted` for completed tasks, in task order; identities freed),
// in-flight creations are left to abort, webhooks are told where the workspace's events end, and the workspace row
// (with its steps, memberships, grants, repositories, profiles — ON DELETE CASCADE) goes last.
// Kept on purpose: release operations (replay evidence, SPEC §7), revisions and outbox events (SPEC §9), creation
// operations (their record), webhook delivery history. None of them has a foreign key to workspaces.
import { can, type Actor } from '../access';
import type { TxRepositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { deleteTaskIn } from '../tasks/change-task';

export interface WorkspaceDeletion {
  workspace_id: string;
  deleted_tasks: number;
  /** Creation operations that were still running: each ends `aborted`, its effects compensated (SPEC §4.4, §6). */
  aborting_operations: number;
}

export const WORKSPACE_DELETED = 'workspace was deleted while the task was being created';

export async function deleteWorkspace(
  services: Pick<Services, 'store'>,
  actor: Actor,
  workspaceId: string,
): Promise<WorkspaceDeletion> {
  // Admin only; a caller who may not administer it cannot tell whether it exists (SPEC §11).
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
  return services.store.transaction(async (tx) => {
    // The row lock makes a concurrent Begin (which bumps task_sequence) wait, then find no workspace.
    if (!(await tx.workspaces.lockForDeletion(workspaceId))) throw new DomainError('not_found');

    const taskIds = await tx.workspaces.listTaskIds(workspaceId);
    for (const id of taskIds) await deleteTaskIn(tx, actor, id);

    const aborting = await markCreationsForAbort(tx, workspaceId);

    // Webhooks still deliver this workspace's events up to and including the deletion's own, then stop.
    await tx.webhooks.endAtLastEventOf(workspaceId);
    await tx.workspaces.delete(workspaceId);
    return { workspace_id: workspaceId, deleted_tasks: taskIds.length, aborting_operations: aborting };
  });
}

/**
 * In-flight creations of the workspace. Their task rows are already gone (deleteTaskIn removes unsettled tasks
 * without an event), which by itself makes Complete end in Abort (SPEC §4.3 "task gone"). Operations whose owner is
 * gone (lease expired) are moved to `aborting` now, so the recovery runtime compensates them directly instead of
 * first running their remaining steps — unless a step's outcome is still unknown: recovery must reconcile it first,
 * which it does for `preparing` operations. Operations with a live owner are left to it: it aborts when Complete
 * finds the task gone, and if it dies, recovery does the same.
 */
async function markCreationsForAbort(tx: TxRepositories, workspaceId: string): Promise<number> {
  const open = await tx.workspaces.countOpenCreations(workspaceId);
  await tx.workspaces.abortOrphanedCreations(workspaceId, WORKSPACE_DELETED, new Date().toISOString());
  return open;
}
