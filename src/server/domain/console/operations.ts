// Creation operations for the console (SPEC §4.2, §5, §13): unsettled identities, and one operation's step timeline
// (state, attempts, durations, evidence, compensation, errors) and history. The list itself is in lists.ts.
import type { Actor } from '../access';
import type { Repositories } from '../../db/store';
import { CLEANUP_FAILING_AFTER } from '../creation/cleanup';
import { DomainError } from '../errors/domain-error';
import { withLookalikes } from './lookalikes';
import { consoleTask, requireRead } from './rows';

export { OPERATION_STATES, type OperationStateFilter } from './rows';

type ConsoleStore = Pick<Repositories, 'console'>;

/** Tasks holding an identity that is not settled, each with the operation that is (or was) creating it. */
export async function readUnsettled(
  store: Pick<Repositories, 'console' | 'identities'>,
  actor: Actor,
  workspaceId: string,
) {
  requireRead(actor, workspaceId);
  // Each id says when another task holds an NFC/NFD spelling of it (SPEC §13).
  const rows = await store.console.unsettledTasks(workspaceId, 500);
  const tasks = await withLookalikes(store, workspaceId, rows.map(consoleTask));
  const byTask = await store.console.operationsByTask(
    workspaceId,
    tasks.map((t) => t.id),
  );
  return tasks.map((task) => ({ task, operation: byTask.get(task.id) ?? null }));
}

/**
 * SPEC §4.4: the workspace's compensations handed to cleanup — the runtime retries them with backoff; `failing`
 * marks those tried CLEANUP_FAILING_AFTER times or more, which an operator should look at.
 */
export async function readCleanup(store: Pick<Repositories, 'cleanup'>, actor: Actor, workspaceId: string) {
  requireRead(actor, workspaceId);
  const rows = await store.cleanup.listWaiting(workspaceId, 200);
  return rows.map((r) => ({
    operation_id: r.operationId,
    task_id: r.taskId,
    external_id: r.externalId,
    step_index: r.stepIndex,
    kind: r.kind,
    attempts: r.attempts,
    last_error: r.lastError,
    next_attempt_at: r.nextAttemptAt,
    failing: r.attempts >= CLEANUP_FAILING_AFTER,
  }));
}

/** One operation with its task, step timeline and history (SPEC §13: lease holders, takeovers, aborts); an operation in a workspace the actor cannot see is a 404. */
export async function readOperation(store: ConsoleStore, actor: Actor, operationId: string) {
  const operation = await store.console.operation(operationId);
  if (!operation) throw new DomainError('not_found');
  requireRead(actor, operation.workspace_id);
  const [steps, task, history] = await Promise.all([
    store.console.operationSteps(operationId),
    store.console.findTask(operation.task_id),
    store.console.operationHistory(operationId),
  ]);
  return { operation, task: task ? consoleTask(task) : null, steps, history };
}
