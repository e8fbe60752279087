// Issue 4 — the creating request's own Begin and Complete on PostgreSQL, each transaction sent as ONE statement
// (a data-modifying CTE, committed on its own), with exactly the effects of the general path in begin.ts and
// complete.ts. Why: creates in one workspace queue on the workspace row lock that numbers them (gapless
// identifiers, SPEC §4.1 step 7). With a BEGIN … COMMIT conversation the lock is held across five client round
// trips; here it is held only while PostgreSQL executes one statement and commits it. The bench measured the
// difference (docs/BENCHMARKS.md). SQLite has no data-modifying CTEs and no network round trips (it runs in
// process, one writer at a time), so it always takes the general path.
//
// Each function answers `undefined` when its guards do not hold, having changed nothing; the caller then takes
// the general path, which handles every unusual case (identity released, task deleted, lease lost) in one place.
// Mismatches that would otherwise commit half a transaction fail the whole statement instead (see `ALL_OR_NOTHING`).
import type { Db } from '../../db/types';
import { dbErrorInfo } from '../../db/dialect';
import { num, str } from '../../db/values';
import { TASK_COLUMNS } from '../../db/repositories/tasks';
import type { Actor } from '../../auth/actor';
import type { EventPayload } from '../events/outbox';
import { toTaskBody, type Task } from '../tasks/task';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';

let enabled = true;

/** When the one-statement form applies: PostgreSQL and — for Begin — no WIP limit to count (see `beginInOneStatement`). */
export function oneStatement(db: Db): boolean {
  return enabled && db.dialect === 'postgres';
}

/** Test seam: the tests write the same creates both ways and compare every row. */
export function setOneStatementForTests(on: boolean): void {
  enabled = on;
}

/**
 * A statement whose counted sub-statements disagree divides by zero, which fails it whole: PostgreSQL then
 * rolls back every CTE of it. `n_guard` and `n_fenced` are the two counts that must match.
 */
const ALL_OR_NOTHING = '1 / (1 - n_guard + n_fenced)';

function isAllOrNothingRollback(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '22012' && dbErrorInfo(err)?.unavailable === false;
}

export interface OneStatementBegin {
  operationId: string;
  taskId: string;
  tokenHash: string;
  leaseOwner: string;
  leaseExpiresAt: string;
  at: string;
  workspaceId: string;
  stepId: string;
  title: string;
  description: string | null;
  parentId: string | null;
  externalId: string | null;
  plan: CreationPlan;
}

/**
 * SPEC §4.1 step 7 in one statement: number the task under the workspace row lock, insert it in `preparing`,
 * its operation and planned steps, and revision 0. Only for a target step WITHOUT a WIP limit: a count inside
 * this statement would run on the statement's snapshot, which under READ COMMITTED does not see the task of the
 * create that held the lock a moment earlier — so a WIP-limited step takes the general path, which counts in a
 * later statement of the same transaction. A unique violation (identity taken) fails the whole statement, the
 * sequence increment included, so identifiers stay gapless. Answers undefined when the workspace is gone.
 */
export async function beginInOneStatement(db: Db, actor: Actor, b: OneStatementBegin): Promise<Task | undefined> {
  // Revision 0's snapshot is toTaskBody() of the new row, whose identifier only the statement knows: the JSON is
  // built here around an empty identifier and the statement splices the real one in (JSON-escaped by to_json).
  // `,"identifier":""` cannot occur inside an earlier string value (its quotes would be escaped).
  const draft: Task = {
    id: b.taskId,
    workspaceId: b.workspaceId,
    number: 0,
    identifier: '',
    title: b.title,
    description: b.description,
    stepId: b.stepId,
    parentId: b.parentId,
    archivedAt: null,
    createdAt: b.at,
    updatedAt: b.at,
    revision: 0,
    creationState: 'preparing',
    externalId: b.externalId,
    externalIdSettledAt: null,
  };
  const json = JSON.stringify(toTaskBody(draft));
  const cut = json.indexOf(',"identifier":""') + ',"identifier":'.length;
  const row = await db.one<{ number: unknown; identifier: unknown }>(
    `WITH ws AS (
       UPDATE workspaces SET task_sequence = task_sequence + 1 WHERE id = $2 RETURNING task_sequence, prefix
     ), t AS (
       INSERT INTO tasks (${TASK_COLUMNS})
       SELECT $1, $2, ws.task_sequence, ws.prefix || '-' || ws.task_sequence, $3, $4, $5, $6, NULL,
              $7::timestamptz, $7::timestamptz, 0, 'preparing', $8, NULL
       FROM ws RETURNING id, number, identifier
     ), op AS (
       INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, created_at, updated_at)
       SELECT $9, $2, t.id, $10, $8, 'preparing', $11, $12, false, 0, $13, $14::timestamptz, $7::timestamptz, $7::timestamptz
       FROM t RETURNING id
     ), steps AS (
       INSERT INTO creation_steps (operation_id, step_index, kind, params, state, attempts)
       SELECT op.id, s.i - 1, s.step ->> 0, s.step ->> 1, 'planned', 0
       FROM op, jsonb_array_elements($15::jsonb) WITH ORDINALITY AS s(step, i)
     ), rev AS (
       INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at)
       SELECT t.id, 0, $2, 'begin', $10, $16 || to_json(t.identifier)::text || $17, $7::timestamptz FROM t
     )
     SELECT number, identifier FROM t`,
    [
      b.taskId,
      b.workspaceId,
      b.title,
      b.description,
      b.stepId,
      b.parentId,
      b.at,
      b.externalId,
      b.operationId,
      actor.id,
      JSON.stringify(b.plan),
      b.tokenHash,
      b.leaseOwner,
      b.leaseExpiresAt,
      // [kind, params JSON] pairs: `->> 1` gives back the exact params text the general path stores.
      JSON.stringify(b.plan.steps.map((s) => [s.kind, JSON.stringify(s.params)])),
      json.slice(0, cut),
      json.slice(cut + 2),
    ],
  );
  if (!row) return undefined;
  return { ...draft, number: num(row.number), identifier: str(row.identifier) };
}

/**
 * SPEC §4.3 phase A for the creating request's fresh handle: task, then operation (the lock order of release and
 * delete), `preparing → completing`, the operation fenced by its generation. True when both moved; undefined
 * when nothing matched (task deleted or changed state): nothing was written and the general path decides. A task
 * that moved while the fence did not match fails the statement (ALL_OR_NOTHING), also answering undefined.
 */
export async function phaseAInOneStatement(db: Db, handle: CreationHandle): Promise<true | undefined> {
  try {
    const row = await db.one<{ ok: unknown }>(
      `WITH t AS (
         UPDATE tasks SET creation_state = 'completing' WHERE id = $1 AND creation_state = 'preparing' RETURNING id
       ), o AS (
         UPDATE creation_operations SET state = 'completing', updated_at = $3
         WHERE id = $2 AND generation = $4 AND state = 'preparing' AND EXISTS (SELECT 1 FROM t) RETURNING id
       ), n AS (SELECT (SELECT count(*) FROM t)::int AS n_guard, (SELECT count(*) FROM o)::int AS n_fenced)
       SELECT n_fenced AS ok, ${ALL_OR_NOTHING} AS guard FROM n`,
      [handle.taskId, handle.operationId, new Date().toISOString(), handle.generation],
    );
    return num(row?.ok) === 1 ? true : undefined;
  } catch (err) {
    if (isAllOrNothingRollback(err)) return undefined;
    throw err;
  }
}

/**
 * SPEC §4.3 phase B for the creating request's fresh handle, when the task is exactly as Begin wrote it
 * (`revision = 0`: nothing changed it while it was preparing) and still holds its identity: settle the stamp,
 * mark task and operation `completed` (fenced), write revision 1 and the one `task.created` event. Because the
 * row is known, the snapshot and event payload are built here and are byte-for-byte what the general path copies
 * from the committed row. Undefined when a guard fails (identity released, task deleted or changed, lease lost):
 * nothing was written and the general path decides (CreatedIdentityLost, gone, LeaseLostError).
 */
export async function phaseBInOneStatement(
  db: Db,
  handle: CreationHandle,
  begun: Task,
  eventId: string,
): Promise<Task | undefined> {
  const at = new Date().toISOString();
  const task: Task = {
    ...begun,
    creationState: 'completed',
    revision: 1,
    updatedAt: at,
    externalIdSettledAt: begun.externalId === null ? null : at,
  };
  const payload: EventPayload = {
    id: eventId,
    type: 'task.created',
    workspace_id: task.workspaceId,
    task_id: task.id,
    revision: 1,
    occurred_at: at,
    task: toTaskBody(task),
  };
  try {
    const row = await db.one<Record<string, unknown>>(
      `WITH t AS (
         UPDATE tasks SET external_id_settled_at = CASE WHEN $2::text IS NULL THEN NULL ELSE $3::timestamptz END,
           creation_state = 'completed', revision = 1, updated_at = $3
         WHERE id = $1 AND revision = 0 AND creation_state = 'completing' AND external_id_settled_at IS NULL
           AND external_id IS NOT DISTINCT FROM $2::text
         RETURNING ${TASK_COLUMNS}
       ), o AS (
         UPDATE creation_operations SET state = 'completed', outcome = $4, event_id = $5, error = NULL, lease_owner = NULL,
           lease_expires_at = NULL, updated_at = $3, finished_at = $3
         WHERE id = $6 AND generation = $7 AND EXISTS (SELECT 1 FROM t) RETURNING id
       ), r AS (
         INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at)
         SELECT t.id, 1, t.workspace_id, 'create', $8, $9, $3 FROM t, o
       ), e AS (
         INSERT INTO outbox_events (id, workspace_id, task_id, revision, type, payload, created_at)
         SELECT $5, t.workspace_id, t.id, 1, 'task.created', $10, $3 FROM t, o
       ), n AS (SELECT (SELECT count(*) FROM t)::int AS n_guard, (SELECT count(*) FROM o)::int AS n_fenced)
       SELECT t.*, ${ALL_OR_NOTHING} AS guard FROM t, n`,
      [
        handle.taskId,
        begun.externalId,
        at,
        JSON.stringify({ kind: 'created', event_id: eventId }),
        eventId,
        handle.operationId,
        handle.generation,
        handle.actor.id,
        JSON.stringify(toTaskBody(task)),
        JSON.stringify(payload),
      ],
    );
    return row ? task : undefined;
  } catch (err) {
    if (isAllOrNothingRollback(err)) return undefined;
    throw err;
  }
}
