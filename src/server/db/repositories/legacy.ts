// Legacy identity rows (SPEC §12): a task holding an identity with no settlement and no creation operation — data
// from before the create protocol, which nothing can settle or release automatically, so it blocks readiness
// until an operator resolves it (settle it as it is, or release its identity). On the driver: attestation runs the
// same statement (db/schema/attest.ts), and a resolution takes the task row inside the transaction that writes its
// revision, event and audit record.
import type { CreationState, Task } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { str } from '../values';
import { TASK_COLUMNS, toTask, type TaskRow } from './tasks';

/** The legacy condition over `tasks t` (attestation counts and lists with it too). */
export const LEGACY_TASKS = `t.external_id IS NOT NULL AND t.external_id_settled_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM creation_operations o WHERE o.task_id = t.id)`;

/** One legacy row as operators see it (the CLI and the console list these). */
export interface LegacyIdentity {
  taskId: string;
  workspaceId: string;
  identifier: string;
  title: string;
  externalId: string;
  creationState: CreationState;
  createdAt: string;
}

/** The audit record of one resolution: what was done to which row, by whom, when and through which channel. */
export interface LegacyResolutionRecord {
  id: string;
  workspaceId: string;
  taskId: string;
  externalId: string;
  action: 'settle' | 'release';
  actorId: string;
  /** `cli` or `console`. */
  source: string;
  createdAt: string;
}

function toLegacy(t: Task): LegacyIdentity {
  return {
    taskId: t.id,
    workspaceId: t.workspaceId,
    identifier: t.identifier,
    title: t.title,
    externalId: t.externalId ?? '',
    creationState: t.creationState,
    createdAt: t.createdAt,
  };
}

const COLUMNS = TASK_COLUMNS.split(', ')
  .map((c) => `t.${c}`)
  .join(', ');

export class LegacyRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Legacy rows, of one workspace or all, in a stable order (workspace, then number). */
  async list(limit: number, workspaceId?: string): Promise<LegacyIdentity[]> {
    const params: unknown[] = workspaceId ? [workspaceId] : [];
    const rows = await this.sql.query<TaskRow>(
      `SELECT ${COLUMNS} FROM tasks t WHERE ${LEGACY_TASKS}${workspaceId ? ' AND t.workspace_id = $1' : ''}
       ORDER BY t.workspace_id, t.number LIMIT ${Math.max(1, Math.floor(limit))}`,
      params,
    );
    return rows.map((r) => toLegacy(toTask(r)));
  }

  /** Whether `taskId` is (still) a legacy row. */
  async isLegacy(taskId: string): Promise<boolean> {
    return (await this.sql.one(`SELECT t.id FROM tasks t WHERE t.id = $1 AND ${LEGACY_TASKS}`, [taskId])) !== undefined;
  }

  /** Settles a legacy row as it is: the identity stays, now settled, and the task counts as completed. */
  async settle(taskId: string, at: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(
      `UPDATE tasks SET external_id_settled_at = $2, creation_state = 'completed'
       WHERE id = $1 AND external_id IS NOT NULL AND external_id_settled_at IS NULL RETURNING ${TASK_COLUMNS}`,
      [taskId, at],
    );
    return row ? toTask(row) : undefined;
  }

  async insertResolution(r: LegacyResolutionRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO legacy_resolutions (id, workspace_id, task_id, external_id, action, actor_id, source, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [r.id, r.workspaceId, r.taskId, r.externalId, r.action, r.actorId, r.source, r.createdAt],
    );
  }

  /** The resolutions of a task, oldest first (audit). */
  async resolutionsOf(taskId: string): Promise<LegacyResolutionRecord[]> {
    const rows = await this.sql.query<Record<string, unknown>>(
      'SELECT id, workspace_id, task_id, external_id, action, actor_id, source, created_at FROM legacy_resolutions WHERE task_id = $1 ORDER BY created_at',
      [taskId],
    );
    return rows.map((r) => ({
      id: str(r.id),
      workspaceId: str(r.workspace_id),
      taskId: str(r.task_id),
      externalId: str(r.external_id),
      action: str(r.action) as 'settle' | 'release',
      actorId: str(r.actor_id),
      source: str(r.source),
      createdAt: str(r.created_at),
    }));
  }
}
