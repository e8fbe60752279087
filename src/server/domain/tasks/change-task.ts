// Lifecycle changes of a completed task (SPEC §2.3, §8, §9): update, archive/unarchive, delete. Each writes the next
// revision and one outbox event in the same transaction as the change.
import type { Actor } from '../access';
import { eventIdOf } from '../../db/repositories/events';
import type { TaskChanges } from '../../db/repositories/tasks';
import type { TxRepositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { isPlainObject, validationError } from './create-input';
import { ZUpdateTaskInput } from './schemas';
import { getTaskOrThrow } from './get-task';
import { toTaskBody, type Task } from '../../model/task';

/** The task, locked for the rest of the transaction, if the actor may change it and its creation has finished. */
async function lockedForChange(tx: TxRepositories, actor: Actor, taskId: string): Promise<Task> {
  await getTaskOrThrow(tx, actor, taskId, 'write');
  const task = await tx.tasks.findByIdForUpdate(taskId);
  if (!task) throw new DomainError('task_not_found');
  if (task.creationState !== 'completed') throw new DomainError('conflict', 'task is still being created');
  return task;
}

/** The change as the next revision, its snapshot and one `task.updated` event. */
async function writeChange(
  tx: TxRepositories,
  actor: Actor,
  taskId: string,
  changes: TaskChanges,
  change: string,
): Promise<Task> {
  const at = new Date().toISOString();
  const task = await tx.tasks.applyChanges(taskId, changes, at);
  if (!task) throw new DomainError('task_not_found');
  await tx.events.insertRevision(task, change, actor.id, toTaskBody(task), at, {
    id: eventIdOf(task.id, task.revision),
    type: 'task.updated',
  });
  return task;
}

export async function updateTask(services: Services, actor: Actor, taskId: string, body: unknown): Promise<Task> {
  if (!isPlainObject(body)) throw new DomainError('invalid_payload');
  const parsed = ZUpdateTaskInput.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  const input = parsed.data;
  return services.store.transaction(async (tx) => {
    const task = await lockedForChange(tx, actor, taskId);
    const changes: TaskChanges = {};
    if (input.title !== undefined && input.title !== task.title) changes.title = input.title;
    if (input.description !== undefined && input.description !== task.description)
      changes.description = input.description;
    if (input.step_id !== undefined && input.step_id !== task.stepId) {
      await admitMove(tx, task.workspaceId, input.step_id);
      changes.stepId = input.step_id;
    }
    if (Object.keys(changes).length === 0) return task; // nothing changed: no revision, no event
    return writeChange(tx, actor, taskId, changes, 'update');
  });
}

/** Moving into a step respects its WIP limit, like a create does. */
async function admitMove(tx: TxRepositories, workspaceId: string, stepId: string): Promise<void> {
  const step = await tx.workspaces.findStep(workspaceId, stepId);
  if (!step) throw new DomainError('validation_failed', 'step_id: workflow step not found in this workspace');
  if (step.wipLimit === null) return;
  if ((await tx.tasks.countActiveInStep(stepId)) >= step.wipLimit) throw new DomainError('wip_limit_exceeded');
}

/** SPEC §8: archiving keeps the identity. Archiving an archived task changes nothing. */
export async function setArchived(services: Services, actor: Actor, taskId: string, archived: boolean): Promise<Task> {
  return services.store.transaction(async (tx) => {
    const task = await lockedForChange(tx, actor, taskId);
    if ((task.archivedAt !== null) === archived) return task;
    return writeChange(
      tx,
      actor,
      taskId,
      { archivedAt: archived ? new Date().toISOString() : null },
      archived ? 'archive' : 'unarchive',
    );
  });
}

/**
 * SPEC §2.3, §8: delete removes the row and frees the identity. A completed task gets a final revision and a
 * `task.deleted` event; a task still being created just disappears (its Complete then reports not-found).
 */
export async function deleteTask(services: Services, actor: Actor, taskId: string): Promise<void> {
  await services.store.transaction((tx) => deleteTaskIn(tx, actor, taskId));
}

export async function deleteTaskIn(tx: TxRepositories, actor: Actor, taskId: string): Promise<void> {
  await getTaskOrThrow(tx, actor, taskId, 'write');
  const current = await tx.tasks.findByIdForUpdate(taskId);
  if (!current) throw new DomainError('task_not_found');
  await tx.tasks.delete(current.id);
  if (current.creationState !== 'completed') return;
  const at = new Date().toISOString();
  const final = { ...current, revision: current.revision + 1, updatedAt: at };
  await tx.events.insertRevision(final, 'delete', actor.id, toTaskBody(final), at, {
    id: eventIdOf(final.id, final.revision),
    type: 'task.deleted',
  });
}
