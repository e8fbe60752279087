// Creation operations for the console (SPEC §4.2, §5, §13): unsettled identities, the list with a state
// filter, and one operation's step timeline (state, attempts, durations, evidence, compensation, errors).
import type { Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { num, str, strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import { CONSOLE_TASK_COLUMNS, OPERATION_COLUMNS, prettyJson, requireRead, toConsoleTask, toOperation } from './rows';

export const OPERATION_STATES = ['preparing', 'completing', 'completed', 'aborting', 'aborted'] as const;
export type OperationStateFilter = (typeof OPERATION_STATES)[number] | 'open';

/** Tasks holding an identity that is not settled, each with the operation that is (or was) creating it. */
export async function readUnsettled(sql: Sql, actor: Actor, workspaceId: string) {
  requireRead(actor, workspaceId);
  const rows = await sql.query(
    `SELECT ${CONSOLE_TASK_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id
      WHERE t.workspace_id = $1 AND t.external_id IS NOT NULL AND t.external_id_settled_at IS NULL
      ORDER BY t.created_at LIMIT 500`,
    [workspaceId],
  );
  const tasks = rows.map(toConsoleTask);
  const ops = tasks.length
    ? await sql.query(
        `SELECT ${OPERATION_COLUMNS}, NULL AS task_identifier FROM creation_operations o
          WHERE o.workspace_id = $1 AND o.task_id IN (${tasks.map((_, i) => `$${i + 2}`).join(', ')}) ORDER BY o.created_at`,
        [workspaceId, ...tasks.map((t) => t.id)],
      )
    : [];
  const byTask = new Map(ops.map((o) => [str(o.task_id), toOperation(o)]));
  return tasks.map((task) => ({ task, operation: byTask.get(task.id) ?? null }));
}

export async function readOperations(sql: Sql, actor: Actor, workspaceId: string, state: OperationStateFilter | null) {
  requireRead(actor, workspaceId);
  const params: unknown[] = [workspaceId];
  let where = 'o.workspace_id = $1';
  if (state === 'open') where += " AND o.state IN ('preparing', 'completing', 'aborting')";
  else if (state) {
    params.push(state);
    where += ' AND o.state = $2';
  }
  const rows = await sql.query(
    `SELECT ${OPERATION_COLUMNS}, t.identifier AS task_identifier FROM creation_operations o LEFT JOIN tasks t ON t.id = o.task_id
      WHERE ${where} ORDER BY o.created_at DESC LIMIT 200`,
    params,
  );
  return rows.map(toOperation);
}

export async function readOperation(sql: Sql, actor: Actor, operationId: string) {
  const row = await sql.one(
    `SELECT ${OPERATION_COLUMNS}, t.identifier AS task_identifier FROM creation_operations o LEFT JOIN tasks t ON t.id = o.task_id WHERE o.id = $1`,
    [operationId],
  );
  if (!row) throw new DomainError('not_found');
  const op = toOperation(row);
  requireRead(actor, op.workspace_id);
  const steps = await sql.query(
    `SELECT step_index, kind, params, state, attempts, evidence, error, compensation_state, lease_expires_at, started_at, finished_at
       FROM creation_steps WHERE operation_id = $1 ORDER BY step_index`,
    [operationId],
  );
  const task = await sql.one(`SELECT ${CONSOLE_TASK_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id WHERE t.id = $1`, [op.task_id]);
  return {
    operation: op,
    task: task ? toConsoleTask(task) : null,
    steps: steps.map((s) => ({
      index: num(s.step_index),
      kind: str(s.kind),
      params: prettyJson(s.params),
      state: str(s.state),
      attempts: num(s.attempts),
      evidence: prettyJson(s.evidence),
      error: strOrNull(s.error),
      compensation_state: strOrNull(s.compensation_state),
      lease_expires_at: strOrNull(s.lease_expires_at),
      started_at: strOrNull(s.started_at),
      finished_at: strOrNull(s.finished_at),
    })),
  };
}
