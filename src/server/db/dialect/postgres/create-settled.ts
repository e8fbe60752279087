// PostgreSQL's one statement for a zero-step create (SPEC §4.3, last bullet: Begin and Complete as one transaction):
// the target check, the number under the workspace row lock, the task inserted settled and `completed`, its operation
// `completed`, revision 1 with the one `task.created` event (no revision 0: readers rebuild it, impliedBegin in
// repositories/events.ts) — one data-modifying CTE that commits on its own, so
// the workspace lock that numbers tasks is held while PostgreSQL runs one statement, not across client round trips.
// The rows are the domain's (domain/creation/rows.ts), exactly as the transaction form writes them
// (CreationStore.createSettled; tests compare them). Written for a
// batch of items in one workspace (statement-batch.ts); a failed batch is retried item by item, so a unique violation
// on uniq_tasks_external_id is always the item's own and rolls back everything of it, the number included.
import type { Drawn, SettledRows } from '../../repositories/creation-store';
import { storedEventId } from '../../repositories/events';
import { TASK_COLUMNS } from '../../repositories/tasks';
import type { Db } from '../../types';
import { bool, jsonParam, num, str } from '../../values';

/** What the statement says of one item: what it drew, or why not (absent: no such workspace, or no such step in it). */
export interface SettledOutcome {
  created?: Drawn & { stepId: string };
  /** The target passed the checks `validate` asks for (root, parent). */
  admitted: boolean;
  /** The step has a WIP limit: admission must count in a later statement than the lock (the transaction form). */
  wipLimited: boolean;
}

const SPLICE = (parts: string, row: string) =>
  `(${parts} ->> 0) || to_json(${row}.made_identifier)::text || (${parts} ->> 1) || to_json(${row}.made_step)::text || (${parts} ->> 2)`;

export async function runSettled(db: Db, items: SettledRows[]): Promise<Array<SettledOutcome | undefined>> {
  const rows = items.map(({ operation: op, task, ...s }, n) => ({
    i: n + 1,
    task_id: task.id,
    op_id: op.id,
    actor_id: op.actorId,
    title: task.title,
    description: task.description,
    step_id: s.stepId,
    parent_id: task.parentId,
    external_id: task.externalId,
    plan: op.plan === null ? null : JSON.stringify(op.plan),
    at: op.at,
    request_id: op.requestId,
    // NULL when derived from the task id and revision (storedEventId): every event made now.
    event_id: storedEventId(s.event.id, task.id, 1),
    validate: s.validate,
    // Cut around the identifier and the step id, which the statement splices in (JSON-escaped by to_json).
    change: s.revision.change,
    snapshot: s.revision.snapshot,
    event_type: s.event.type,
  }));
  const out = await db.query<{
    i: unknown;
    admitted: unknown;
    wip_limited: unknown;
    number: unknown;
    identifier: unknown;
    step_id: unknown;
  }>(
    `WITH k AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS k(i int, task_id text, op_id text, actor_id text, title text,
         description text, step_id text, parent_id text, external_id text, plan text, at timestamptz,
         request_id text, event_id text, validate boolean, change text, snapshot jsonb, event_type text)
     ), target AS (
       SELECT k.i, s.id AS step_id, s.wip_limit IS NOT NULL AS wip_limited,
              (NOT k.validate OR (w.root_path IS NULL AND (k.parent_id IS NULL
                OR EXISTS (SELECT 1 FROM tasks p WHERE p.id = k.parent_id AND p.workspace_id = w.id)))) AS admitted
       FROM k JOIN workspaces w ON w.id = $1
       CROSS JOIN LATERAL (
         SELECT id, wip_limit FROM workflow_steps WHERE workspace_id = w.id AND (k.step_id IS NULL OR id = k.step_id)
         ORDER BY position LIMIT 1
       ) s
     ), ok AS (
       SELECT i, step_id, row_number() OVER (ORDER BY i) AS r FROM target WHERE admitted AND NOT wip_limited
     ), ws AS (
       UPDATE workspaces SET task_sequence = task_sequence + (SELECT count(*) FROM ok)
       WHERE id = $1 AND EXISTS (SELECT 1 FROM ok)
       RETURNING task_sequence - (SELECT count(*) FROM ok) AS before, prefix
     ), t AS (
       INSERT INTO tasks (${TASK_COLUMNS})
       SELECT k.task_id, $1, ws.before + ok.r, ws.prefix || '-' || (ws.before + ok.r), k.title, k.description, ok.step_id,
              k.parent_id, NULL, k.at, k.at, 1, 'completed', k.external_id, CASE WHEN k.external_id IS NULL THEN NULL ELSE k.at END
       FROM ws, ok JOIN k ON k.i = ok.i
       RETURNING id, number, identifier, step_id
     ), made AS (
       SELECT k.*, t.identifier AS made_identifier, t.step_id AS made_step FROM t JOIN k ON k.task_id = t.id
     ), rev AS (
       INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_id, event_type)
       SELECT made.task_id, 1, $1, made.change, made.actor_id, ${SPLICE('made.snapshot', 'made')}, made.at, made.event_id,
              made.event_type
       FROM made ORDER BY made.i
     ), op AS (
       INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, outcome, event_id, error, created_at, updated_at, finished_at,
         request_id)
       SELECT op_id, $1, task_id, actor_id, external_id, 'completed', plan, NULL, false, 0, NULL, NULL, NULL, NULL,
              NULL, at, at, at, request_id
       FROM made
     )
     SELECT target.i, target.admitted, target.wip_limited, t.number, t.identifier, t.step_id
     FROM target JOIN k ON k.i = target.i LEFT JOIN t ON t.id = k.task_id`,
    [items[0]!.operation.workspaceId, jsonParam(rows)],
  );
  const byIndex = new Map(out.map((r) => [num(r.i), r]));
  return items.map((_, n) => {
    const r = byIndex.get(n + 1);
    if (!r) return undefined;
    const created =
      r.number === null ? undefined : { number: num(r.number), identifier: str(r.identifier), stepId: str(r.step_id) };
    return { created, admitted: bool(r.admitted), wipLimited: bool(r.wip_limited) };
  });
}
