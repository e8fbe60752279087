// SPEC §4.1 step 6: validation that needs the database, done only after a lookup miss.
import type { Db } from '../../db/types';
import { perDb, StatementBatch } from '../../db/statement-batch';
import { jsonParam, strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from './create-input';

export interface CreateTarget {
  stepId: string;
  /** The workspace's working-folder root (SPEC §5 `workspace_attachment`), read in the same statement. */
  rootPath: string | null;
  /** The step has a WIP limit: Begin must count under the workspace lock (SPEC §4.1 step 7). */
  wipLimited: boolean;
}

export async function validateCreate(
  db: Db,
  workspaceId: string,
  parentId: string | null,
  fields: TCreateTaskFields,
): Promise<CreateTarget> {
  const ws = await readTarget(db, workspaceId, fields.step_id ?? null);
  // A global actor naming a workspace that does not exist gets the same 404 as anyone else.
  if (!ws) throw new DomainError('task_not_created');
  const stepId = strOrNull(ws.step_id);
  if (!stepId) {
    throw fields.step_id
      ? new DomainError('validation_failed', 'step_id: workflow step not found in this workspace')
      : new DomainError('validation_failed', 'workspace has no workflow steps');
  }

  if (parentId) {
    const parent = await db.one('SELECT id FROM tasks WHERE id = $1 AND workspace_id = $2', [parentId, workspaceId]);
    if (!parent) throw new DomainError('validation_failed', 'parent_id: parent task not found in this workspace');
  }
  return { stepId, rootPath: strOrNull(ws.root_path), wipLimited: ws.wip_limit !== null && ws.wip_limit !== undefined };
}

interface TargetRow {
  root_path: unknown;
  step_id: unknown;
  wip_limit: unknown;
}

/** One statement: the workspace, its root and the requested (or first) step with its WIP limit. */
function readTarget(db: Db, workspaceId: string, stepId: string | null): Promise<TargetRow | undefined> {
  if (db.dialect === 'postgres') return targetBatch(db).push('', { workspaceId, stepId });
  return db.one<TargetRow>(
    stepId
      ? `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
         LEFT JOIN workflow_steps s ON s.id = $2 AND s.workspace_id = w.id WHERE w.id = $1`
      : `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
         LEFT JOIN workflow_steps s ON s.id = (SELECT id FROM workflow_steps WHERE workspace_id = $1 ORDER BY position LIMIT 1)
         WHERE w.id = $1`,
    stepId ? [workspaceId, stepId] : [workspaceId],
  );
}

/** PostgreSQL: creates validated in the same turn share the statement (issue 4, statement-batch.ts). */
const targetBatch = perDb(
  (db) =>
    new StatementBatch<{ workspaceId: string; stepId: string | null }, TargetRow | undefined>(async (items) => {
      const rows = await db.query<TargetRow & { i: unknown }>(
        `SELECT k.i, w.root_path, s.id AS step_id, s.wip_limit
         FROM jsonb_to_recordset($1::jsonb) AS k(i int, ws text, step text)
         JOIN workspaces w ON w.id = k.ws
         LEFT JOIN LATERAL (
           SELECT id, wip_limit FROM workflow_steps
           WHERE workspace_id = w.id AND (k.step IS NULL OR id = k.step) ORDER BY position LIMIT 1
         ) s ON true`,
        [jsonParam(items.map((it, i) => ({ i: i + 1, ws: it.workspaceId, step: it.stepId })))],
      );
      const byIndex = new Map(rows.map((r) => [Number(r.i), r]));
      return items.map((_, i) => byIndex.get(i + 1));
    }),
);
