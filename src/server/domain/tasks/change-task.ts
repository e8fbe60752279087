// Lifecycle changes of a completed task (SPEC §2.3, §8, §9): update, archive/unarchive, delete. Each writes the next
// revision and one outbox event in the same transaction as the change.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Actor } from '../../auth/actor';
import { insertRevision, TASK_COLUMNS, toTask } from '../../db/repositories/tasks';
import type { Sql } from '../../db/types';
import { num } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { insertOutboxEvent } from '../events/outbox';
import { isPlainObject, validationError } from './create-input';
import { getTaskOrThrow } from './get-task';
import { toTaskBody, type Task } from './task';

/** SPEC §2.3: no update surface accepts `external_id`; the field is ignored and the rest still applies. */
export const ZUpdateTaskInput = z.object({
  title: z.string().trim().min(1, 'title must not be empty').max(500).optional(),
  description: z.string().max(100_000).nullable().optional(),
  step_id: z.string().min(1).max(200).optional(),
});
export type TUpdateTaskInput = z.infer<typeof ZUpdateTaskInput>;

async function lockedForChange(tx: Sql, actor: Actor, taskId: string): Promise<Task> {
  const task = await getTaskOrThrow(tx, actor, taskId, 'write');
  if (tx.dialect === 'postgres') await tx.run('SELECT 1 FROM tasks WHERE id = $1 FOR UPDATE', [taskId]);
  if (task.creationState !== 'completed') throw new DomainError('conflict', 'task is still being created');
  return task;
}

async function writeChange(tx: Sql, actor: Actor, taskId: string, set: string, params: unknown[], change: string): Promise<Task> {
  const at = new Date().toISOString();
  const row = await tx.one<Record<string, unknown>>(
    `UPDATE tasks SET ${set}, revision = revision + 1, updated_at = $2 WHERE id = $1 RETURNING ${TASK_COLUMNS}`,
    [taskId, at, ...params],
  );
  if (!row) throw new DomainError('task_not_found');
  const task = toTask(row);
  await insertRevision(tx, task, change, actor.id, toTaskBody(task), at);
  await insertOutboxEvent(tx, { id: randomUUID(), type: 'task.updated', task, at });
  return task;
}

export async function updateTask(services: Services, actor: Actor, taskId: string, body: unknown): Promise<Task> {
  if (!isPlainObject(body)) throw new DomainError('invalid_payload');
  const parsed = ZUpdateTaskInput.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  const input = parsed.data;
  return services.db.transaction(async (tx) => {
    const task = await lockedForChange(tx, actor, taskId);
    const sets: string[] = [];
    const params: unknown[] = [];
    const add = (col: string, v: unknown) => {
      params.push(v);
      sets.push(`${col} = $${params.length + 2}`);
    };
    if (input.title !== undefined && input.title !== task.title) add('title', input.title);
    if (input.description !== undefined && input.description !== task.description) add('description', input.description);
    if (input.step_id !== undefined && input.step_id !== task.stepId) {
      await admitMove(tx, task.workspaceId, input.step_id);
      add('step_id', input.step_id);
    }
    if (sets.length === 0) return task; // nothing changed: no revision, no event
    return writeChange(tx, actor, taskId, sets.join(', '), params, 'update');
  });
}

/** Moving into a step respects its WIP limit, like a create does. */
async function admitMove(tx: Sql, workspaceId: string, stepId: string): Promise<void> {
  const step = await tx.one<{ wip_limit: unknown }>('SELECT wip_limit FROM workflow_steps WHERE id = $1 AND workspace_id = $2', [stepId, workspaceId]);
  if (!step) throw new DomainError('validation_failed', 'step_id: workflow step not found in this workspace');
  if (step.wip_limit === null || step.wip_limit === undefined) return;
  const row = await tx.one<{ n: unknown }>('SELECT COUNT(*) AS n FROM tasks WHERE step_id = $1 AND archived_at IS NULL', [stepId]);
  if (num(row?.n ?? 0) >= num(step.wip_limit)) throw new DomainError('wip_limit_exceeded');
}

/** SPEC §8: archiving keeps the identity. Archiving an archived task changes nothing. */
export async function setArchived(services: Services, actor: Actor, taskId: string, archived: boolean): Promise<Task> {
  return services.db.transaction(async (tx) => {
    const task = await lockedForChange(tx, actor, taskId);
    if ((task.archivedAt !== null) === archived) return task;
    return writeChange(tx, actor, taskId, 'archived_at = $3', [archived ? new Date().toISOString() : null], archived ? 'archive' : 'unarchive');
  });
}

/**
 * SPEC §2.3, §8: delete removes the row and frees the identity. A completed task gets a final revision and a
 * `task.deleted` event; a task still being created just disappears (its Complete then reports not-found).
 */
export async function deleteTask(services: Services, actor: Actor, taskId: string): Promise<void> {
  await services.db.transaction((tx) => deleteTaskIn(tx, actor, taskId));
}

export async function deleteTaskIn(tx: Sql, actor: Actor, taskId: string): Promise<void> {
  const task = await getTaskOrThrow(tx, actor, taskId, 'write');
  const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
  const row = await tx.one<Record<string, unknown>>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1${lock}`, [task.id]);
  if (!row) throw new DomainError('task_not_found');
  const current = toTask(row);
  await tx.run('DELETE FROM tasks WHERE id = $1', [current.id]);
  if (current.creationState !== 'completed') return;
  const at = new Date().toISOString();
  const final = { ...current, revision: current.revision + 1, updatedAt: at };
  await insertRevision(tx, final, 'delete', actor.id, toTaskBody(final), at);
  await insertOutboxEvent(tx, { id: randomUUID(), type: 'task.deleted', task: final, at });
}
