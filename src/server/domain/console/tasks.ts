// Console task reads (SPEC §13): the sortable, paginated table; exact find-by-external-id; task detail.
import { can, type Actor } from '../../auth/actor';
import type { Repositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError, isDomainError } from '../errors/domain-error';
import { normalizeExternalId } from '../identity/normalize';
import { getTaskOrThrow } from '../tasks/get-task';
import { requireRead, type TaskTableQuery } from './rows';

export { TASK_SORTS, type TaskSort, type TaskTableQuery as TaskTableInput } from './rows';

type ConsoleStore = Pick<Repositories, 'console'>;

export async function readTaskTable(store: ConsoleStore, actor: Actor, input: TaskTableQuery) {
  requireRead(actor, input.workspaceId);
  return store.console.taskPage(input);
}

/**
 * Exact find (SPEC §7 lookup semantics, §2.1 normalization): the normalized value is shown back so the operator
 * sees what was searched for. Nothing holding it is an answer (`task: null`), not an error. It is an identity read:
 * until attestation passes it answers 503 with the reason, like every other (SPEC §12; issue 17: it skipped the gate).
 */
export async function findByExternalId(services: Pick<Services, 'store' | 'readiness'>, actor: Actor, workspaceId: string, raw: string) {
  const { store } = services;
  requireRead(actor, workspaceId);
  let normalized: string | undefined;
  try {
    normalized = normalizeExternalId(raw);
  } catch (err) {
    if (isDomainError(err)) return { normalized: null, error: err.message, task: null };
    throw err;
  }
  if (normalized === undefined) return { normalized: null, error: 'invalid external_id: external_id is required', task: null };
  services.readiness.requireIdentity();
  const task = await store.console.findTaskByExternalId(workspaceId, normalized);
  return { normalized, error: null, task: task ?? null };
}

/** A task with its identity panel, creation operation, revisions and events (SPEC §13 task detail). */
export async function readTaskDetail(store: Pick<Repositories, 'tasks' | 'console'>, actor: Actor, taskId: string) {
  const task = await getTaskOrThrow(store, actor, taskId);
  const [row, operation, revisions, events] = await Promise.all([
    store.console.findTask(task.id),
    store.console.latestOperationOfTask(task.id),
    store.console.revisionsOfTask(task.id, 200),
    store.console.eventsOfTask(task.id, 200),
  ]);
  if (!row) throw new DomainError('task_not_found');
  return {
    task: { ...row, description: task.description, parent_id: task.parentId },
    operation: operation ?? null,
    can_release: can(actor, task.workspaceId, 'release'),
    revisions,
    events,
  };
}
