// PostgreSQL's form of the task repository's Found-path read: identity lookups issued in the same turn of
// the event loop share one statement (statement-batch.ts). Each caller gets exactly the row its own single-row
// lookup would return; semantics are the single lookup's: a read, one snapshot per statement, no writes (SPEC §4.1
// step 5) — a Found still costs at most one statement. Only the repository bound to the pool batches; inside a
// transaction every statement belongs to that transaction, so the inherited single-row form applies.
import type { Task } from '../../../model/task';
import { StatementBatch } from './statement-batch';
import { BY_EXTERNAL_ID, TASK_COLUMNS, TaskRepository, toTask, type TaskRow } from '../../repositories/tasks';
import type { Db } from '../../types';
import { jsonParam } from '../../values';
import { POSTGRES } from '../../drivers/index';

/**
 * One JSON parameter keeps a single prepared statement for every batch size; `k_i` says whose row it is. The
 * LATERAL … LIMIT 1 cannot be flattened into a join, so each key is one probe of the identity index whatever the
 * planner believes about the table (a plain join chose a hash join over the whole table before ANALYZE).
 */
export const BATCHED_BY_EXTERNAL_ID = `SELECT k.i AS k_i, t.* FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS k(pair, i)
    CROSS JOIN LATERAL (
      SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = k.pair ->> 0 AND external_id = (k.pair ->> 1) COLLATE "C" LIMIT 1
    ) t`;

interface Key {
  workspaceId: string;
  externalId: string;
}

export class PostgresTaskRepository extends TaskRepository {
  private readonly lookups: StatementBatch<Key, TaskRow | undefined>;

  constructor(db: Db) {
    super(db, POSTGRES);
    this.lookups = new StatementBatch(async (keys) => {
      if (keys.length === 1)
        return [await db.one<TaskRow>(BY_EXTERNAL_ID, [keys[0]!.workspaceId, keys[0]!.externalId])];
      const rows = await db.query<TaskRow & { k_i: unknown }>(BATCHED_BY_EXTERNAL_ID, [
        jsonParam(keys.map((k) => [k.workspaceId, k.externalId])),
      ]);
      const byIndex = new Map(rows.map((row) => [Number(row.k_i), row])); // toTask reads only the task's columns
      return keys.map((_, i) => byIndex.get(i + 1));
    });
  }

  override async findByExternalId(workspaceId: string, externalId: string): Promise<Task | undefined> {
    const row = await this.lookups.push('', { workspaceId, externalId });
    return row ? toTask(row) : undefined;
  }
}
