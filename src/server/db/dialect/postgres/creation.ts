// PostgreSQL's creation store (kept because it measures faster — docs/BENCHMARKS.md): the same methods, given the
// same rows the domain computed, as the transaction form it extends (repositories/creation-store.ts) — a zero-step
// create's one transaction (SPEC §4.3; create-settled.ts), and the creating request's own Begin and Complete phases,
// each sent as ONE statement (a data-modifying CTE, committed on its own) writing exactly the rows the transaction
// form writes (tests compare them row for row). It splices what the statement draws (the number, the step) into the
// domain's JSON templates with to_json. Why: creates in one workspace queue on the workspace row lock that numbers them (gapless identifiers,
// SPEC §4.1 step 7). With a BEGIN … COMMIT conversation the lock is held across five client round trips; here only
// while PostgreSQL executes one statement and commits it. SQLite has no data-modifying CTEs and no round trips (it
// runs in process, one writer at a time), so its store is the transaction form alone.
//
// Each statement is written for a batch of items (a JSON recordset): creates that reach the same step in the same
// turn of the event loop share one statement (statement-batch.ts), one of them alone is a batch of one. Each form
// answers `undefined` when its guards do not hold, having changed nothing; the inherited transaction form then
// handles every unusual case (identity released, task deleted, lease lost) in one place. Mismatches that would
// otherwise commit half a transaction fail the whole statement instead (`ALL_OR_NOTHING`); a failed batch of several
// is retried item by item, so a failure is always the item's own. The UPDATEs name their rows by primary key
// (`id = ANY (ARRAY(SELECT … FROM k))`) as well as joining the items: the planner believes a JSON recordset holds
// 100 rows and, on a small table, joined it by scanning the whole table.
import type { Fence } from '../../repositories/creation';
import {
  CreationStore,
  type BeginRows,
  type BeginResult,
  type CompletingRecord,
  type CompletingResult,
  type Drawn,
  type SettleRows,
  type SettleResult,
  type SettledRows,
  type SettledResult,
  type Transactor,
} from '../../repositories/creation-store';
import { TASK_COLUMNS } from '../../repositories/tasks';
import { storedEventId } from '../../repositories/events';
import { encodeSnapshot } from '../../repositories/snapshots';
import { StatementBatch } from './statement-batch';
import type { Db } from '../../types';
import { jsonParam, num, str } from '../../values';
import { POSTGRES } from '../../drivers/index';
import { runSettled, type SettledOutcome } from './create-settled';

/**
 * A statement whose counted sub-statements disagree divides by zero, which fails it whole: PostgreSQL then
 * rolls back every CTE of it. `n_guard` (tasks that moved) and `n_fenced` (operations that moved with them,
 * fenced by their generation) must match.
 */
const ALL_OR_NOTHING = '1 / (CASE WHEN n_guard = n_fenced THEN 1 ELSE 0 END)';

function isAllOrNothingRollback(err: unknown): boolean {
  return (err as { code?: unknown })?.code === '22012';
}

/**
 * Runs a guarded batch statement. A batch of one whose guard tripped answers undefined (nothing was written);
 * a batch of several rethrows, so StatementBatch retries each item alone and only the lost one gets undefined.
 */
async function guarded<O>(items: unknown[], run: () => Promise<Array<O | undefined>>): Promise<Array<O | undefined>> {
  try {
    return await run();
  } catch (err) {
    if (items.length === 1 && isAllOrNothingRollback(err)) return [undefined];
    throw err;
  }
}

type PhaseAItem = Fence & { taskId: string };

export class PostgresCreationStore extends CreationStore {
  private readonly begins: StatementBatch<BeginRows, Drawn | undefined>;
  private readonly phaseA: StatementBatch<PhaseAItem, true | undefined>;
  private readonly phaseB: StatementBatch<SettleRows, true | undefined>;
  private readonly settledCreates: StatementBatch<SettledRows, SettledOutcome | undefined>;

  constructor(db: Db, transaction: Transactor) {
    super(db, POSTGRES, transaction);
    this.begins = new StatementBatch((items) => runBegin(db, items));
    this.phaseA = new StatementBatch((items) => runPhaseA(db, items));
    this.phaseB = new StatementBatch((items) => runPhaseB(db, items));
    // One workspace per batch: its row is the one lock the statement takes, and numbers are consecutive in it.
    this.settledCreates = new StatementBatch((items) => runSettled(db, items));
  }

  /**
   * SPEC §4.3 zero-step, in one statement (create-settled.ts) when the step has no WIP limit and no deferred start is
   * written; the transaction form decides everything else (a WIP count after the lock, a target that went missing).
   * The one statement has no moment between its writes and its commit: `beforeCommit` runs before it is sent.
   */
  override async createSettled(s: SettledRows): Promise<SettledResult> {
    if (s.deferred) return super.createSettled(s);
    await s.beforeCommit?.();
    const out = await this.settledCreates.push(s.operation.workspaceId, s);
    if (out?.created) return { kind: 'created', ...out.created };
    if (s.validate && !(out?.admitted && out.wipLimited)) return { kind: 'unplanned' };
    return super.createSettled({ ...s, beforeCommit: undefined });
  }

  /** A step with a WIP limit counts its tasks in a later statement of the transaction form (see beginInOneStatement). */
  override async begin(b: BeginRows): Promise<BeginResult> {
    if (b.wipLimited) return super.begin(b);
    const drawn = await this.beginInOneStatement(b);
    return drawn ? { kind: 'begun', ...drawn } : { kind: 'workspace_missing' };
  }

  override async enterCompleting(c: CompletingRecord): Promise<CompletingResult> {
    if (c.fresh && (await this.enterCompletingInOneStatement(c))) return { kind: 'completing' };
    return super.enterCompleting(c);
  }

  /** A deferred start writes its intent with the completion: the transaction form does that. */
  override async settle(s: SettleRows): Promise<SettleResult> {
    if (s.fresh && !s.deferred && (await this.settleInOneStatement(s))) return { kind: 'held' };
    return super.settle(s);
  }

  /**
   * SPEC §4.1 step 7 in one statement: number the task under the workspace row lock, insert it in `preparing`,
   * its operation and planned steps, and revision 0. Only for a target step WITHOUT a WIP limit: a count inside
   * this statement would run on the statement's snapshot, which under READ COMMITTED does not see the task of the
   * create that held the lock a moment earlier — so a WIP-limited step takes the transaction form, which counts in
   * a later statement. A unique violation (identity taken) fails the whole statement, the sequence increment
   * included, so identifiers stay gapless. Undefined when the workspace is gone.
   */
  beginInOneStatement(b: BeginRows): Promise<Drawn | undefined> {
    // One workspace per batch: its row is the one lock the statement takes, and numbers are consecutive in it.
    return this.begins.push(b.operation.workspaceId, b);
  }

  /**
   * SPEC §4.3 phase A for the creating request's fresh handle: task, then operation (the lock order of release and
   * delete), `preparing → completing`, the operation fenced by its generation. True when both moved; undefined
   * when nothing matched (task deleted or changed state): nothing was written. A task that moved while the fence
   * did not match fails the statement (ALL_OR_NOTHING), also answering undefined.
   */
  enterCompletingInOneStatement(c: PhaseAItem): Promise<true | undefined> {
    return this.phaseA.push('', c);
  }

  /**
   * SPEC §4.3 phase B for the creating request's fresh handle, when the task is exactly as Begin wrote it
   * (`revision = 0`: nothing changed it while it was preparing) and still holds its identity: the `held` rows —
   * settle the stamp, mark task and operation `completed` (fenced), write revision 1 with the one `task.created`
   * event. True when written; undefined when a guard fails (identity released, task deleted or changed, lease lost):
   * nothing was written.
   */
  settleInOneStatement(s: SettleRows): Promise<true | undefined> {
    return this.phaseB.push('', s);
  }
}

async function runBegin(db: Db, items: BeginRows[]): Promise<Array<Drawn | undefined>> {
  const workspaceId = items[0]!.operation.workspaceId;
  const rows = items.map(({ operation: op, task, revision }, i) => ({
    i: i + 1,
    task_id: task.id,
    op_id: op.id,
    actor_id: op.actorId,
    title: task.title,
    description: task.description,
    step_id: task.stepId,
    parent_id: task.parentId,
    external_id: task.externalId,
    plan: JSON.stringify(op.plan),
    token_hash: op.tokenHash,
    lease_owner: op.leaseOwner,
    lease_expires_at: op.leaseExpiresAt,
    at: op.at,
    request_id: op.requestId,
    // [kind, params JSON] pairs: `->> 1` gives back the exact params text the transaction form stores.
    steps: op.plan.steps.map((s) => [s.kind, JSON.stringify(s.params)]),
    // Revision 0's stored snapshot around its identifier, which the statement splices in (JSON-escaped by to_json).
    change: revision.change,
    head: revision.snapshot[0],
    tail: revision.snapshot[1],
  }));
  const out = await db.query<{ id: unknown; number: unknown; identifier: unknown }>(
    `WITH k AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS k(i int, task_id text, op_id text, actor_id text, title text,
         description text, step_id text, parent_id text, external_id text, plan text, token_hash text, lease_owner text,
         lease_expires_at timestamptz, at timestamptz, request_id text, steps jsonb, change text, head text, tail text)
     ), ws AS (
       UPDATE workspaces SET task_sequence = task_sequence + (SELECT count(*) FROM k) WHERE id = $1
       RETURNING task_sequence - (SELECT count(*) FROM k) AS before, prefix
     ), t AS (
       INSERT INTO tasks (${TASK_COLUMNS})
       SELECT k.task_id, $1, ws.before + k.i, ws.prefix || '-' || (ws.before + k.i), k.title, k.description, k.step_id,
              k.parent_id, NULL, k.at, k.at, 0, 'preparing', k.external_id, NULL
       FROM ws, k RETURNING id, number, identifier
     ), op AS (
       INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, created_at, updated_at, request_id)
       SELECT k.op_id, $1, t.id, k.actor_id, k.external_id, 'preparing', k.plan, k.token_hash, false, 0, k.lease_owner,
              k.lease_expires_at, k.at, k.at, k.request_id
       FROM t JOIN k ON k.task_id = t.id RETURNING id
     ), steps AS (
       INSERT INTO creation_steps (operation_id, step_index, kind, params, state, attempts)
       SELECT op.id, s.n - 1, s.step ->> 0, s.step ->> 1, 'planned', 0
       FROM op JOIN k ON k.op_id = op.id, jsonb_array_elements(k.steps) WITH ORDINALITY AS s(step, n)
     ), rev AS (
       INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at)
       SELECT t.id, 0, $1, k.change, k.actor_id, k.head || to_json(t.identifier)::text || k.tail, k.at
       FROM t JOIN k ON k.task_id = t.id
     )
     SELECT id, number, identifier FROM t`,
    [workspaceId, jsonParam(rows)],
  );
  const byId = new Map(out.map((r) => [str(r.id), r]));
  return items.map(({ task }) => {
    const r = byId.get(task.id);
    return r ? { number: num(r.number), identifier: str(r.identifier) } : undefined;
  });
}

async function runPhaseA(db: Db, batch: PhaseAItem[]): Promise<Array<true | undefined>> {
  const items = batch.map((c, i) => ({ i: i + 1, task_id: c.taskId, op_id: c.operationId, gen: c.generation }));
  return guarded(items, async () => {
    const rows = await db.query<{ i: unknown; ok: unknown }>(
      `WITH k AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS k(i int, task_id text, op_id text, gen int)
       ), t AS (
         UPDATE tasks SET creation_state = 'completing' FROM k
         WHERE tasks.id = ANY (ARRAY(SELECT task_id FROM k)) AND tasks.id = k.task_id AND tasks.creation_state = 'preparing' RETURNING k.i
       ), o AS (
         UPDATE creation_operations SET state = 'completing', updated_at = $2 FROM k
         WHERE creation_operations.id = ANY (ARRAY(SELECT op_id FROM k)) AND creation_operations.id = k.op_id AND creation_operations.generation = k.gen
           AND creation_operations.state = 'preparing' AND k.i IN (SELECT i FROM t)
         RETURNING k.i
       ), n AS (SELECT (SELECT count(*) FROM t)::int AS n_guard, (SELECT count(*) FROM o)::int AS n_fenced)
       SELECT k.i, k.i IN (SELECT i FROM o) AS ok, ${ALL_OR_NOTHING} AS guard FROM k, n`,
      [jsonParam(items), new Date().toISOString()],
    );
    const moved = new Set(rows.filter((r) => r.ok === true).map((r) => num(r.i)));
    return items.map((it) => (moved.has(it.i) ? true : undefined));
  });
}

async function runPhaseB(db: Db, batch: SettleRows[]): Promise<Array<true | undefined>> {
  const items = batch.map((s, i) => ({
    i: i + 1,
    task_id: s.held.task.id,
    external_id: s.held.task.externalId,
    at: s.at,
    outcome: JSON.stringify(s.held.outcome),
    event_id: s.held.event.id,
    // The revision's: NULL when derived from the task id and revision (storedEventId).
    rev_event_id: storedEventId(s.held.event.id, s.held.task.id, 1),
    op_id: s.operationId,
    gen: s.generation,
    actor_id: s.actorId,
    change: s.held.revision.change,
    snapshot: encodeSnapshot(s.held.revision.snapshot, {
      taskId: s.held.task.id,
      workspaceId: s.held.task.workspaceId,
      revision: s.held.task.revision,
      at: s.at,
    }),
  }));
  return guarded(items, async () => {
    const rows = await db.query<{ i: unknown; ok: unknown }>(
      `WITH k AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS k(i int, task_id text, external_id text, at timestamptz,
           outcome text, event_id text, rev_event_id text, op_id text, gen int, actor_id text, change text, snapshot text)
       ), t AS (
         UPDATE tasks SET external_id_settled_at = CASE WHEN k.external_id IS NULL THEN NULL ELSE k.at END,
           creation_state = 'completed', revision = 1, updated_at = k.at
         FROM k
         WHERE tasks.id = ANY (ARRAY(SELECT task_id FROM k)) AND tasks.id = k.task_id AND tasks.revision = 0 AND tasks.creation_state = 'completing'
           AND tasks.external_id_settled_at IS NULL AND tasks.external_id IS NOT DISTINCT FROM (k.external_id COLLATE "C")
         RETURNING k.i, tasks.workspace_id
       ), o AS (
         UPDATE creation_operations SET state = 'completed', outcome = k.outcome, event_id = k.event_id, error = NULL,
           lease_owner = NULL, lease_expires_at = NULL, updated_at = k.at, finished_at = k.at
         FROM k
         WHERE creation_operations.id = ANY (ARRAY(SELECT op_id FROM k)) AND creation_operations.id = k.op_id AND creation_operations.generation = k.gen AND k.i IN (SELECT i FROM t)
         RETURNING k.i
       ), r AS (
         INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_id, event_type)
         SELECT k.task_id, 1, t.workspace_id, k.change, k.actor_id, k.snapshot, k.at, k.rev_event_id, 'task.created'
         FROM k JOIN t ON t.i = k.i JOIN o ON o.i = k.i ORDER BY k.i
       ), n AS (SELECT (SELECT count(*) FROM t)::int AS n_guard, (SELECT count(*) FROM o)::int AS n_fenced)
       SELECT k.i, k.i IN (SELECT i FROM o) AS ok, ${ALL_OR_NOTHING} AS guard FROM k, n`,
      [jsonParam(items)],
    );
    const done = new Set(rows.filter((r) => r.ok === true).map((r) => num(r.i)));
    return batch.map((_, i) => (done.has(i + 1) ? true : undefined));
  });
}
