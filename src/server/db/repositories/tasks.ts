// Tasks and their identity (SPEC §2, §7, §8): the hot path of every create, lookup and release, on the driver.
// SQL is written once for both dialects (STYLE habit 10); PostgreSQL batches lookups issued together
// (dialect/postgres/tasks.ts) behind the same method.
import type { CreationState, Task } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { num, placeholders, str, strOrNull } from '../values';

export const TASK_COLUMNS =
  'id, workspace_id, number, identifier, title, description, step_id, parent_id, archived_at, created_at, updated_at, revision, creation_state, external_id, external_id_settled_at';

/** A `tasks` row as either driver returns it (SQLite: integers and ISO text; PostgreSQL: the same, by our parsers). */
export interface TaskRow {
  id: unknown;
  workspace_id: unknown;
  number: unknown;
  identifier: unknown;
  title: unknown;
  description: unknown;
  step_id: unknown;
  parent_id: unknown;
  archived_at: unknown;
  created_at: unknown;
  updated_at: unknown;
  revision: unknown;
  creation_state: unknown;
  external_id: unknown;
  external_id_settled_at: unknown;
}

export function toTask(r: TaskRow): Task {
  return {
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    number: num(r.number),
    identifier: str(r.identifier),
    title: str(r.title),
    description: strOrNull(r.description),
    stepId: str(r.step_id),
    parentId: strOrNull(r.parent_id),
    archivedAt: strOrNull(r.archived_at),
    createdAt: str(r.created_at),
    updatedAt: str(r.updated_at),
    revision: num(r.revision),
    creationState: str(r.creation_state) as CreationState,
    externalId: strOrNull(r.external_id),
    externalIdSettledAt: strOrNull(r.external_id_settled_at),
  };
}

/** The fields an update may change (SPEC §2.3: never the identity). */
export interface TaskChanges {
  title?: string;
  description?: string | null;
  stepId?: string;
  archivedAt?: string | null;
}

const CHANGE_COLUMNS: Record<keyof TaskChanges, string> = {
  title: 'title',
  description: 'description',
  stepId: 'step_id',
  archivedAt: 'archived_at',
};

export interface TaskPageQuery {
  workspaceId: string;
  archived?: 'include' | 'exclude' | 'only';
  /** Only tasks numbered below this (the page cursor, newest first). */
  beforeNumber?: number;
  limit: number;
}

export const BY_EXTERNAL_ID = `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = $1 AND external_id = $2`;

export class TaskRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** SPEC §4.1 step 5 / §7: the one indexed read of the Found path and of lookup (uniq_tasks_external_id). */
  async findByExternalId(workspaceId: string, externalId: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(BY_EXTERNAL_ID, [workspaceId, externalId]);
    return row ? toTask(row) : undefined;
  }

  /** The holder of an identity, locked until commit (release, SPEC §7). */
  async findHolderForUpdate(workspaceId: string, externalId: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(`${BY_EXTERNAL_ID}${this.dialect.forUpdate}`, [workspaceId, externalId]);
    return row ? toTask(row) : undefined;
  }

  async findById(id: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`, [id]);
    return row ? toTask(row) : undefined;
  }

  /** The task, locked until commit (changes and deletes take the task row first: the lock order of release). */
  async findByIdForUpdate(id: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1${this.dialect.forUpdate}`,
      [id],
    );
    return row ? toTask(row) : undefined;
  }

  /** Whether `taskId` is a task of `workspaceId` (parent validation, SPEC §4.1 step 6). */
  async existsInWorkspace(taskId: string, workspaceId: string): Promise<boolean> {
    return (
      (await this.sql.one('SELECT id FROM tasks WHERE id = $1 AND workspace_id = $2', [taskId, workspaceId])) !==
      undefined
    );
  }

  /** How many of `ids` are tasks of `workspaceId` (blocker validation, SPEC §4.1 step 6). */
  async countInWorkspace(workspaceId: string, ids: readonly string[]): Promise<number> {
    if (ids.length === 0) return 0;
    const rows = await this.sql.query(
      `SELECT id FROM tasks WHERE workspace_id = $1 AND id IN (${placeholders(2, ids.length)})`,
      [workspaceId, ...ids],
    );
    return rows.length;
  }

  /** Unarchived tasks in a step (WIP admission counts them). */
  async countActiveInStep(stepId: string): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      'SELECT COUNT(*) AS n FROM tasks WHERE step_id = $1 AND archived_at IS NULL',
      [stepId],
    );
    return num(row?.n ?? 0);
  }

  /** A page of a workspace's tasks, newest first; one more row than asked tells whether another page follows. */
  async listPage(q: TaskPageQuery): Promise<Task[]> {
    const params: unknown[] = [q.workspaceId];
    let where = 'workspace_id = $1';
    if (q.archived === 'exclude') where += ' AND archived_at IS NULL';
    if (q.archived === 'only') where += ' AND archived_at IS NOT NULL';
    if (q.beforeNumber !== undefined) {
      params.push(q.beforeNumber);
      where += ` AND number < $${params.length}`;
    }
    params.push(q.limit);
    const rows = await this.sql.query<TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where} ORDER BY number DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toTask);
  }

  /** Inserts the row as given. A unique violation on uniq_tasks_external_id is the caller's to interpret. */
  async insert(t: Task): Promise<void> {
    await this.sql.run(
      `INSERT INTO tasks (${TASK_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        t.id,
        t.workspaceId,
        t.number,
        t.identifier,
        t.title,
        t.description,
        t.stepId,
        t.parentId,
        t.archivedAt,
        t.createdAt,
        t.updatedAt,
        t.revision,
        t.creationState,
        t.externalId,
        t.externalIdSettledAt,
      ],
    );
  }

  /** Applies `changes` as the next revision; undefined when the task is gone. */
  async applyChanges(taskId: string, changes: TaskChanges, at: string): Promise<Task | undefined> {
    const params: unknown[] = [taskId, at];
    const sets: string[] = [];
    for (const [key, column] of Object.entries(CHANGE_COLUMNS) as Array<[keyof TaskChanges, string]>) {
      if (changes[key] === undefined) continue;
      params.push(changes[key]);
      sets.push(`${column} = $${params.length}`);
    }
    const row = await this.sql.one<TaskRow>(
      `UPDATE tasks SET ${[...sets, 'revision = revision + 1', 'updated_at = $2'].join(', ')} WHERE id = $1 RETURNING ${TASK_COLUMNS}`,
      params,
    );
    return row ? toTask(row) : undefined;
  }

  /**
   * SPEC §7, holder `completed`: clears both identity columns as the next revision — only while the task still
   * holds `externalId` (undefined otherwise: the caller treats the holder as having moved on).
   */
  async releaseSettledIdentity(taskId: string, externalId: string, at: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(
      `UPDATE tasks SET external_id = NULL, external_id_settled_at = NULL, revision = revision + 1, updated_at = $3
       WHERE id = $1 AND external_id = $2 RETURNING ${TASK_COLUMNS}`,
      [taskId, externalId, at],
    );
    return row ? toTask(row) : undefined;
  }

  /** SPEC §7, holder `preparing`: frees the identity with no revision (its Complete yields CreatedIdentityLost). */
  async releasePreparingIdentity(taskId: string, externalId: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE tasks SET external_id = NULL, external_id_settled_at = NULL WHERE id = $1 AND external_id = $2 AND creation_state = 'preparing'`,
      [taskId, externalId],
    );
    return n > 0;
  }

  async delete(taskId: string): Promise<void> {
    await this.sql.run('DELETE FROM tasks WHERE id = $1', [taskId]);
  }
}
