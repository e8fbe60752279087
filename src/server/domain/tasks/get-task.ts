// Task reads. A task in a workspace the caller cannot see is indistinguishable from no task (SPEC §11).
import { can, visibleWorkspaces, type Actor, type Permission } from '../access';
import type { TxRepositories } from '../../db/repositories';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { validationError } from './create-input';
import { ZTaskListParams, type TTaskListParams } from './list-params';
import type { Task } from '../../model/task';

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

export interface ListTasksInput extends TTaskListParams {
  workspaceId: string;
}

export interface TaskPage {
  tasks: Task[];
  nextCursor: string | null;
}

/** Newest first. `archived` defaults to include (operators browse everything); `limit` to 50. */
export async function listTasks(services: Services, actor: Actor, input: ListTasksInput): Promise<TaskPage> {
  if (!can(actor, input.workspaceId, 'read')) throw new DomainError('not_found');
  // The surfaces parse with this schema already; a direct caller is held to the same rule, so no caller reaches the
  // page arithmetic with a value it cannot handle.
  const parsed = ZTaskListParams.safeParse({ archived: input.archived, limit: input.limit, cursor: input.cursor });
  if (!parsed.success) throw validationError(parsed.error);
  const { archived, cursor } = parsed.data;
  const limit = parsed.data.limit ?? 50;
  // The cursor is the last task number seen: a next_cursor value (list-params.ts).
  const beforeNumber = cursor ? Number(cursor) : undefined;
  const rows = await services.store.tasks.listPage({
    workspaceId: input.workspaceId,
    archived,
    beforeNumber,
    limit: limit + 1,
  });
  const tasks = rows.slice(0, limit);
  return { tasks, nextCursor: rows.length > limit ? String(tasks[tasks.length - 1]!.number) : null };
}

/** Workspaces visible to the actor (for the console and MCP). */
export async function listVisibleWorkspaces(
  services: Services,
  actor: Actor,
): Promise<Array<{ id: string; name: string; prefix: string }>> {
  const visible = visibleWorkspaces(actor);
  const rows = await services.store.workspaces.listSummaries();
  return visible === 'all' ? rows : rows.filter((r) => visible.includes(r.id));
}
