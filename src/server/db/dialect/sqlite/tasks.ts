// SQLite's form of the task repository's Found-path read. better-sqlite3 is built with
// SQLITE_ENABLE_STAT4, and once ANALYZE has written sqlite_stat4 (an operator's `PRAGMA optimize`, the bench) SQLite
// re-plans a statement on EVERY execution whose bound parameter is compared with an indexed column: binding such a
// parameter expires the prepared statement (sqlite3_prepare_v3: "the specific value of a WHERE-clause parameter might
// influence the choice of query plan"). For the identity lookup that re-plan cost more than the lookup itself.
// Unary `+` on a parameter is a no-op on its value — no affinity, no collation, so the comparison still uses the
// column's (BINARY, as uniq_tasks_external_id) — but the planner no longer probes the statistics with the value, so
// the statement is planned once. The plan stays the unique index's one-row search (SPEC §4.1 step 5:
// one indexed read; tests/integration/db/sqlite-lookup-plan.test.ts holds it).
import type { Task } from '../../../model/task';
import { TASK_COLUMNS, TaskRepository, toTask, type TaskRow } from '../../repositories/tasks';
import { SQLITE } from '../../drivers/index';
import { READ_VERSION_COLUMNS, type SqliteDb } from '../../drivers/sqlite';

export const SQLITE_BY_EXTERNAL_ID = `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = +$1 AND external_id = +$2`;

/** The same read, with what the driver needs to remember its row (drivers/sqlite.ts, remembered reads). */
const REMEMBERED_BY_EXTERNAL_ID = `SELECT ${TASK_COLUMNS}, ${READ_VERSION_COLUMNS} FROM tasks WHERE workspace_id = +$1 AND external_id = +$2`;

export class SqliteTaskRepository extends TaskRepository {
  constructor(private readonly db: SqliteDb) {
    super(db, SQLITE);
  }

  /**
   * The Found path's read, remembered by the driver while the database is unchanged: a retry of a create whose task
   * was just found is answered without reading the task again (one statement that checks nothing changed; no write).
   * Workspace ids and identities never hold U+0000 (the driver refuses it in any parameter), so the key is unambiguous.
   */
  override async findByExternalId(workspaceId: string, externalId: string): Promise<Task | undefined> {
    const row = await this.db.rememberedOne<TaskRow>(`${workspaceId}\u0000${externalId}`, REMEMBERED_BY_EXTERNAL_ID, [
      workspaceId,
      externalId,
    ]);
    return row ? toTask(row) : undefined;
  }
}
