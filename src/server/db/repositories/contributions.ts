// Remote contributions (SPEC §5 `remote_contribution`): a normalized PR/MR URL associated with a task, unique per
// workspace (uniq_remote_contributions_url decides) and per step (its deterministic key).
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { str } from '../values';

export interface Contribution {
  id: string;
  workspaceId: string;
  url: string;
  taskId: string;
  operationId: string;
  stepIndex: number;
  at: string;
}

export class ContributionRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Inserts the association unless the URL (or this step's row) is already there; see `holderOf`. */
  async associate(c: Contribution): Promise<void> {
    await this.sql.run(
      `INSERT INTO remote_contributions (id, workspace_id, url, task_id, operation_id, step_index, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [c.id, c.workspaceId, c.url, c.taskId, c.operationId, c.stepIndex, c.at],
    );
  }

  /** The id of the association that holds `url` in the workspace now. */
  async holderOf(workspaceId: string, url: string): Promise<string | undefined> {
    const row = await this.sql.one<{ id: unknown }>(
      'SELECT id FROM remote_contributions WHERE workspace_id = $1 AND url = $2',
      [workspaceId, url],
    );
    return row ? str(row.id) : undefined;
  }

  /** The association this step made for the task, if it exists. */
  async findByStep(
    operationId: string,
    stepIndex: number,
    taskId: string,
  ): Promise<{ id: string; url: string } | undefined> {
    const row = await this.sql.one<{ id: unknown; url: unknown }>(
      'SELECT id, url FROM remote_contributions WHERE operation_id = $1 AND step_index = $2 AND task_id = $3',
      [operationId, stepIndex, taskId],
    );
    return row ? { id: str(row.id), url: str(row.url) } : undefined;
  }

  async removeByStep(operationId: string, stepIndex: number): Promise<void> {
    await this.sql.run('DELETE FROM remote_contributions WHERE operation_id = $1 AND step_index = $2', [
      operationId,
      stepIndex,
    ]);
  }
}
