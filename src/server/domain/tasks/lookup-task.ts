// SPEC §7 Lookup: read-only. The task holding (workspace, external_id), archived and unsettled included.
import { can, type Actor } from '../access';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { requireExternalId } from '../identity/normalize';
import type { Task } from '../../model/task';

export interface LookupResult {
  task: Task;
  /** Required synchronous setup finished (SPEC §3) — never "task done". */
  creationComplete: boolean;
}

export async function lookupTaskByExternalId(
  services: Services,
  actor: Actor,
  workspaceId: string,
  rawExternalId: unknown,
): Promise<LookupResult> {
  // Authorization precedes identity validation; a miss and a denial are the same 404.
  if (!can(actor, workspaceId, 'read')) throw new DomainError('task_not_found');
  const externalId = requireExternalId(rawExternalId);
  services.readiness.requireIdentity();
  const task = await services.store.tasks.findByExternalId(workspaceId, externalId);
  if (!task) throw new DomainError('task_not_found');
  return { task, creationComplete: task.creationState === 'completed' };
}
