// Task reads. A task in a workspace the caller cannot see is indistinguishable from no task (SPEC §11).
import { can, visibleWorkspaces, type Actor, type Permission } from '../../auth/actor';
import type { TxRepositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { Task } from './task';

/** Loads a task the actor may act on; 404 when it does not exist or is invisible, 403 when only readable. */
export async function getTaskOrThrow(
  repos: Pick<TxRepositories, 'tasks'>,
  actor: Actor,
  taskId: string,
  permission: Permission = 'read',
): Promise<Task> {
  const task = await repos.tasks.findById(taskId);
  if (!task || !can(actor, task.workspaceId, 'read')) throw new DomainError('task_not_found');
  if (permission !== 'read' && !can(actor, task.workspaceId, permission)) throw new DomainError('forbidden');
  return task;
}

export async function getTask(services: Services, actor: Actor, taskId: string): Promise<Task> {
  return getTaskOrThrow(services.store, actor, taskId);
}

export interface ListTasksInput {
  workspaceId: string;
  /** Include archived tasks (default true: operators browse everything). */
  archived?: 'include' | 'exclude' | 'only';
  limit?: number;
  /** Opaque cursor from a previous page: the last task number seen (newest first). */
  cursor?: string | null;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
}

export async function listTasks(services: Services, actor: Actor, input: ListTasksInput): Promise<TaskPage> {
  if (!can(actor, input.workspaceId, 'read')) throw new DomainError('not_found');
  const limit = Math.min(Math.max(input.limit ?? 50, 1), 200);
  let beforeNumber: number | undefined;
  if (input.cursor) {
    const n = Number(input.cursor);
    if (!Number.isInteger(n) || n < 0) throw new DomainError('validation_failed', 'cursor: invalid');
    beforeNumber = n;
  }
  const rows = await services.store.tasks.listPage({ workspaceId: input.workspaceId, archived: input.archived, beforeNumber, limit: limit + 1 });
  const tasks = rows.slice(0, limit);
  return { tasks, nextCursor: rows.length > limit ? String(tasks[tasks.length - 1]!.number) : null };
}

/** Workspaces visible to the actor (for the console and MCP). */
export async function listVisibleWorkspaces(services: Services, actor: Actor): Promise<Array<{ id: string; name: string; prefix: string }>> {
  const visible = visibleWorkspaces(actor);
  const rows = await services.store.workspaces.listSummaries();
  return visible === 'all' ? rows : rows.filter((r) => visible.includes(r.id));
}
