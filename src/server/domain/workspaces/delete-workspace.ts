// SPEC §8: workspace deletion. One transaction: every task goes through the task aggregate's own delete
// (`deleteTaskIn`: a final revision and `task.deleted` for completed tasks, in task order; identities freed),
// in-flight creations are left to abort, webhooks are told where the workspace's events end, and the workspace row
// (with its steps, memberships, grants, repositories, profiles — ON DELETE CASCADE) goes last.
// Kept on purpose: release operations (replay evidence, SPEC §7), revisions and outbox events (SPEC §9), creation
// operations (their record), webhook delivery history. None of them has a foreign key to workspaces.
import { can, type Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { num, str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { deleteTaskIn } from '../tasks/change-task';
import { repositoriesFor } from '../../db/store';

export interface WorkspaceDeletion {
  workspace_id: string;
  deleted_tasks: number;
  /** Creation operations that were still running: each ends `aborted`, its effects compensated (SPEC §4.4, §6). */
  aborting_operations: number;
}

export const WORKSPACE_DELETED = 'workspace was deleted while the task was being created';

export async function deleteWorkspace(services: Pick<Services, 'db'>, actor: Actor, workspaceId: string): Promise<WorkspaceDeletion> {
  // Admin only; a caller who may not administer it cannot tell whether it exists (SPEC §11).
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
  return services.db.transaction(async (tx) => {
    // PostgreSQL: the row lock makes a concurrent Begin (which bumps task_sequence) wait, then find no workspace.
    const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
    const ws = await tx.one(`SELECT id FROM workspaces WHERE id = $1${lock}`, [workspaceId]);
    if (!ws) throw new DomainError('not_found');

    const tasks = await tx.query<{ id: unknown }>('SELECT id FROM tasks WHERE workspace_id = $1 ORDER BY number', [workspaceId]);
    for (const t of tasks) await deleteTaskIn(repositoriesFor(tx), actor, str(t.id));

    const aborting = await markCreationsForAbort(tx, workspaceId);

    // Webhooks still deliver this workspace's events up to and including the deletion's own, then stop.
    await tx.run('UPDATE webhooks SET final_seq = (SELECT COALESCE(MAX(seq), 0) FROM outbox_events WHERE workspace_id = $1) WHERE workspace_id = $1', [
      workspaceId,
    ]);
    await tx.run('DELETE FROM workspaces WHERE id = $1', [workspaceId]);
    return { workspace_id: workspaceId, deleted_tasks: tasks.length, aborting_operations: aborting };
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
async function markCreationsForAbort(tx: Sql, workspaceId: string): Promise<number> {
  const now = new Date().toISOString();
  const open = await tx.query<{ n: unknown }>(
    "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state IN ('preparing', 'completing', 'aborting')",
    [workspaceId],
  );
  await tx.run(
    `UPDATE creation_operations SET state = 'aborting', error = COALESCE(error, $2), updated_at = $3,
          lease_expires_at = COALESCE(lease_expires_at, $3)
      WHERE workspace_id = $1 AND state = 'preparing' AND (lease_expires_at IS NULL OR lease_expires_at < $3)
        AND NOT EXISTS (SELECT 1 FROM creation_steps s WHERE s.operation_id = creation_operations.id AND s.state IN ('running', 'unknown'))`,
    [workspaceId, WORKSPACE_DELETED, now],
  );
  return num(open[0]?.n ?? 0);
}
