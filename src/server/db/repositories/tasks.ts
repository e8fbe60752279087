// Task rows: SQL written once for both dialects (STYLE habit 10).
import type { Db, Sql } from '../types';
import { lookupBatch } from './lookup-batch';
import { perDb } from '../statement-batch';
import type { CreationState, Task } from '../../domain/tasks/task';
import { num, str, strOrNull } from '../values';

export const TASK_COLUMNS =
  'id, workspace_id, number, identifier, title, description, step_id, parent_id, archived_at, created_at, updated_at, revision, creation_state, external_id, external_id_settled_at';

export function toTask(r: Record<string, unknown>): Task {
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

const BY_EXTERNAL_ID = `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = $1 AND external_id = $2`;

const lookups = perDb((db) => lookupBatch(db, BY_EXTERNAL_ID, TASK_COLUMNS));

/**
 * SPEC §4.1 step 5: the one indexed read of the Found path. Outside a transaction on PostgreSQL, lookups issued
 * together share one statement (lookup-batch.ts); inside a transaction, or on SQLite (in process, no round
 * trips to save), it is the single-row statement.
 */
export async function findTaskByExternalId(sql: Sql, workspaceId: string, externalId: string): Promise<Task | undefined> {
  let row: Record<string, unknown> | undefined;
  if (sql.dialect === 'postgres' && isDb(sql)) {
    row = await lookups(sql).push('', { workspaceId, externalId });
  } else {
    row = await sql.one<Record<string, unknown>>(BY_EXTERNAL_ID, [workspaceId, externalId]);
  }
  return row ? toTask(row) : undefined;
}

function isDb(sql: Sql): sql is Db {
  return 'transaction' in sql;
}

export async function findTaskById(sql: Sql, id: string): Promise<Task | undefined> {
  const row = await sql.one<Record<string, unknown>>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`, [id]);
  return row ? toTask(row) : undefined;
}

export async function insertTask(sql: Sql, t: Task): Promise<void> {
  await sql.run(
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

export async function insertRevision(
  sql: Sql,
  task: Task,
  change: string,
  actorId: string | null,
  snapshot: unknown,
  at: string,
): Promise<void> {
  await sql.run(
    'INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [task.id, task.revision, task.workspaceId, change, actorId, JSON.stringify(snapshot), at],
  );
}
