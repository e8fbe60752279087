// Console task reads (SPEC §13): the sortable, paginated table; exact find-by-external-id; task detail.
import { can, type Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { num, str, strOrNull } from '../../db/values';
import { DomainError, isDomainError } from '../errors/domain-error';
import { normalizeExternalId } from '../identity/normalize';
import { getTaskOrThrow } from '../tasks/get-task';
import { repositoriesFor } from '../../db/store';
import { CONSOLE_TASK_COLUMNS, OPERATION_COLUMNS, prettyJson, requireRead, toConsoleTask, toEvent, toOperation } from './rows';

export const TASK_SORTS = ['identifier', 'title', 'external_id', 'step', 'created_at'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

// Whitelisted ORDER BY expressions. `(x IS NULL)` first puts tasks without an identity last in both dialects
// (SQLite and PostgreSQL disagree on where NULLs sort).
const ORDER: Record<TaskSort, (dir: string) => string> = {
  identifier: (d) => `t.number ${d}`,
  title: (d) => `t.title ${d}, t.number DESC`,
  external_id: (d) => `(t.external_id IS NULL), t.external_id ${d}, t.number DESC`,
  step: (d) => `s.position ${d}, t.number DESC`,
  created_at: (d) => `t.created_at ${d}, t.number ${d}`,
};

export interface TaskTableInput {
  workspaceId: string;
  sort: TaskSort;
  dir: 'asc' | 'desc';
  offset: number;
  limit: number;
  archived: 'include' | 'exclude' | 'only';
}

export async function readTaskTable(sql: Sql, actor: Actor, input: TaskTableInput) {
  requireRead(actor, input.workspaceId);
  let where = 't.workspace_id = $1';
  if (input.archived === 'exclude') where += ' AND t.archived_at IS NULL';
  if (input.archived === 'only') where += ' AND t.archived_at IS NOT NULL';
  const dir = input.dir === 'asc' ? 'ASC' : 'DESC';
  const rows = await sql.query(
    `SELECT ${CONSOLE_TASK_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id
      WHERE ${where} ORDER BY ${ORDER[input.sort](dir)} LIMIT $2 OFFSET $3`,
    [input.workspaceId, input.limit, input.offset],
  );
  const total = await sql.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM tasks t WHERE ${where}`, [input.workspaceId]);
  return { rows: rows.map(toConsoleTask), total: num(total?.n ?? 0) };
}

/**
 * Exact find (SPEC §7 lookup semantics, §2.1 normalization): the normalized value is shown back so the operator
 * sees what was searched for. Nothing holding it is an answer (`task: null`), not an error.
 */
export async function findByExternalId(sql: Sql, actor: Actor, workspaceId: string, raw: string) {
  requireRead(actor, workspaceId);
  let normalized: string | undefined;
  try {
    normalized = normalizeExternalId(raw);
  } catch (err) {
    if (isDomainError(err)) return { normalized: null, error: err.message, task: null };
    throw err;
  }
  if (normalized === undefined) return { normalized: null, error: 'invalid external_id: external_id is required', task: null };
  const row = await sql.one(
    `SELECT ${CONSOLE_TASK_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id WHERE t.workspace_id = $1 AND t.external_id = $2`,
    [workspaceId, normalized],
  );
  return { normalized, error: null, task: row ? toConsoleTask(row) : null };
}

export async function readTaskDetail(sql: Sql, actor: Actor, taskId: string) {
  const task = await getTaskOrThrow(repositoriesFor(sql), actor, taskId);
  const row = await sql.one(`SELECT ${CONSOLE_TASK_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id WHERE t.id = $1`, [task.id]);
  if (!row) throw new DomainError('task_not_found');
  const op = await sql.one(
    `SELECT ${OPERATION_COLUMNS}, t.identifier AS task_identifier FROM creation_operations o LEFT JOIN tasks t ON t.id = o.task_id
      WHERE o.task_id = $1 ORDER BY o.created_at DESC LIMIT 1`,
    [task.id],
  );
  const revisions = await sql.query('SELECT revision, change, actor_id, snapshot, created_at FROM task_revisions WHERE task_id = $1 ORDER BY revision DESC LIMIT 200', [
    task.id,
  ]);
  const events = await sql.query('SELECT seq, id, task_id, type, revision, payload, created_at FROM outbox_events WHERE task_id = $1 ORDER BY seq DESC LIMIT 200', [
    task.id,
  ]);
  return {
    task: { ...toConsoleTask(row), description: task.description, parent_id: task.parentId },
    operation: op ? toOperation(op) : null,
    can_release: can(actor, task.workspaceId, 'release'),
    revisions: revisions.map((r) => ({
      revision: num(r.revision),
      change: str(r.change),
      actor_id: strOrNull(r.actor_id),
      snapshot: prettyJson(r.snapshot),
      created_at: str(r.created_at),
    })),
    events: events.map(toEvent),
  };
}
