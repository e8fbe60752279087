// Revisions and the transactional outbox (SPEC §9): written in the same transaction as the change they record.
import type { EventPayload } from '../../domain/events/outbox';
import type { Task } from '../../domain/tasks/task';
import type { SqlDialect } from '../dialect';
import type { Sql } from '../types';
import { str } from '../values';

export class EventRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Appends `task`'s revision (its number is `task.revision`) with the snapshot the surfaces show. */
  async insertRevision(task: Task, change: string, actorId: string | null, snapshot: unknown, at: string): Promise<void> {
    await this.sql.run(
      'INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [task.id, task.revision, task.workspaceId, change, actorId, JSON.stringify(snapshot), at],
    );
  }

  /**
   * Appends one immutable outbox row. Invariant the relay relies on (domain/events/horizon.ts): it is always
   * written after the same transaction changed `tasks` or `task_revisions`, so on PostgreSQL the transaction
   * already holds an xid when `seq` is drawn.
   */
  async insertEvent(payload: EventPayload): Promise<void> {
    await this.sql.run(
      'INSERT INTO outbox_events (id, workspace_id, task_id, revision, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [payload.id, payload.workspace_id, payload.task_id, payload.revision, payload.type, JSON.stringify(payload), payload.occurred_at],
    );
  }

  /** SPEC §4.1 step 2: a task's workspace from retained history (revision 0 outlives the task). */
  async workspaceOfTask(taskId: string): Promise<string | undefined> {
    const row = await this.sql.one<{ workspace_id: unknown }>('SELECT workspace_id FROM task_revisions WHERE task_id = $1 AND revision = 0', [
      taskId,
    ]);
    return row ? str(row.workspace_id) : undefined;
  }
}
