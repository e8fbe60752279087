// Creation operations and their steps (SPEC §4, §5, §6): the statements of Begin, Complete, Abort, the fence and
// recovery claims, on the driver (hot path). Each method is one statement; the transactions that compose them are
// in creation-store.ts (and the PostgreSQL one-statement forms in dialect/postgres/creation.ts).
import { v7 as orderedId } from 'uuid';
import type { OperationState } from '../../domain/creation/operation';
import type { CreationPlan, PlannedStep, StepKind } from '../../domain/creation/plan';
import type { Task } from '../../model/task';
import type { SqlDialect } from '../drivers';
import { LeaseLostError } from '../errors';
import type { Sql } from '../types';
import { bool, json, num, numOrNull, str, strOrNull } from '../values';
import { readEventId } from './events';
import { TASK_COLUMNS, toTask, type TaskRow } from './tasks';

/** Who may write for an operation (SPEC §4.2): the creating request at generation 0, or the recovery claim since. */
export interface Fence {
  operationId: string;
  generation: number;
}

export interface NewOperation {
  id: string;
  workspaceId: string;
  taskId: string;
  actorId: string;
  externalId: string | null;
  plan: CreationPlan;
  tokenHash: string;
  leaseOwner: string;
  leaseExpiresAt: string;
  at: string;
  /** The X-Request-Id of the request that began it (SPEC §13); null in process (CLI, tests). */
  requestId: string | null;
}

/**
 * A zero-step create's operation, a compact record (SPEC §9): inserted `completed`, so it stores no token (no handle is
 * ever made from it), and no plan when the plan is the empty one (nothing to start, no profile: nothing it says).
 */
export type CompletedOperation = Omit<NewOperation, 'leaseOwner' | 'leaseExpiresAt' | 'plan' | 'tokenHash'> & {
  plan: CreationPlan | null;
};

/** A zero-step create's number and what its target holds (drawSettledNumber). */
export interface SettledDraw {
  number: number;
  prefix: string;
  rootPath: string | null;
  /** The step named (if it is the workspace's) or the workspace's first; null when there is none. */
  stepId: string | null;
  wipLimit: number | null;
  /** No parent was named, or it is a task of the workspace. */
  parentHeld: boolean;
}

/** What Complete stores as its outcome (replayed by a second Complete with the same handle, SPEC §4.3). */
export interface StoredOutcome {
  kind: 'created' | 'created_identity_lost' | 'gone' | 'aborted';
  event_id?: string;
}

/**
 * The outcome of a zero-step create's compact operation (SPEC §9), which stores none: `created`, with the event of
 * its task's revision 1 (one transaction wrote both; a zero-step create is never identity-lost). Every other
 * `completed` operation has its outcome stored by Complete, so a `completed` one without is a compact record.
 */
export function compactOutcome(eventId: string): StoredOutcome {
  return { kind: 'created', event_id: eventId };
}

export interface OperationRecord {
  id: string;
  state: OperationState;
  outcome: StoredOutcome | null;
  /** Null for a zero-step create's compact operation, which no handle names. */
  tokenHash: string | null;
  error: string | null;
}

/** An operation a recovery worker has just claimed (SPEC §6), with the generation it now holds. */
export interface ClaimedOperation extends Fence {
  taskId: string;
  workspaceId: string;
  actorId: string;
  externalId: string | null;
  plan: CreationPlan;
  /** The id this takeover records and logs (SPEC §13): the recovery runtime has no HTTP request, so it makes one. */
  requestId: string;
}

/** An expired operation as a recovery claimer saw it: whose lease ran out, and when (for its history). */
export interface ExpiredOperation extends Fence {
  leaseOwner: string | null;
  leaseExpiresAt: string | null;
}

/**
 * One entry of an operation's history (SPEC §6, §13; creation_history): the rare events besides its steps. Only
 * recovery and Abort write them, so a create that finishes by itself writes none.
 */
export type HistoryEvent =
  /** A recovery claim: `previousOwner`'s lease (generation `generation - 1`) had expired at `leaseExpiredAt`. */
  | { kind: 'takeover'; previousOwner: string | null; leaseExpiredAt: string | null; leaseUntil: string }
  /** Recovery checked a step a dead owner left `running`/`unknown`: its effect was found, re-run, or given up. */
  | {
      kind: 'step_reconciled';
      stepIndex: number;
      stepKind: string;
      decision: 'succeeded' | 'rerun' | 'failed';
      attempts: number;
    }
  /** Abort began (or a recovery resumed it): the error it ends with. */
  | { kind: 'aborting'; error: string; resumed: boolean }
  /**
   * An attempt ended in an error that left the operation open for recovery (the creating request answered with it, or
   * a recovery pass was deferred): its error, and the step that was running, if one was.
   */
  | { kind: 'attempt_failed'; error: string; stepIndex: number | null; stepKind: string | null };

export interface HistoryRecord {
  operationId: string;
  at: string;
  generation: number;
  leaseOwner: string | null;
  /** The request it happened in (a takeover: the id the runtime made for it); null when unknown. */
  requestId: string | null;
  event: HistoryEvent;
}

export type StepState = 'planned' | 'running' | 'succeeded' | 'failed' | 'unknown';
export type CompensationState = 'compensating' | 'compensated' | 'handed_to_cleanup';

/** The stored progress of one planned step (creation_steps). */
export interface StepRecord {
  index: number;
  kind: StepKind;
  params: Record<string, unknown>;
  state: StepState;
  attempts: number;
  evidence: Record<string, unknown> | null;
  error: string | null;
  compensationState: CompensationState | null;
  leaseExpiresAt: string | null;
}

/** A change to a step row: an absent field stays as it is, `null` clears the column. */
export interface StepChange {
  state?: StepState;
  /** Counts one more attempt. */
  attempt?: true;
  evidence?: Record<string, unknown>;
  error?: string | null;
  startedAt?: string;
  finishedAt?: string | null;
  leaseExpiresAt?: string | null;
  compensationState?: CompensationState;
}

const STEP_COLUMNS: Record<Exclude<keyof StepChange, 'attempt'>, string> = {
  state: 'state',
  evidence: 'evidence',
  error: 'error',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  leaseExpiresAt: 'lease_expires_at',
  compensationState: 'compensation_state',
};

interface StepRow {
  step_index: unknown;
  kind: unknown;
  params: unknown;
  state: unknown;
  attempts: unknown;
  evidence: unknown;
  error: unknown;
  compensation_state: unknown;
  lease_expires_at: unknown;
}

function toStep(r: StepRow): StepRecord {
  return {
    index: num(r.step_index),
    kind: str(r.kind) as StepKind,
    params: json<Record<string, unknown>>(r.params),
    state: str(r.state) as StepState,
    attempts: num(r.attempts),
    evidence: r.evidence ? json<Record<string, unknown>>(r.evidence) : null,
    error: strOrNull(r.error),
    compensationState: strOrNull(r.compensation_state) as CompensationState | null,
    leaseExpiresAt: strOrNull(r.lease_expires_at),
  };
}

export class CreationRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  // ---- Begin (SPEC §4.1 step 7) ------------------------------------------------------------------------------

  async insertOperation(op: NewOperation): Promise<void> {
    await this.sql.run(
      `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, created_at, updated_at, request_id)
       VALUES ($1, $2, $3, $4, $5, 'preparing', $6, $7, $8, 0, $9, $10, $11, $11, $12)`,
      [
        op.id,
        op.workspaceId,
        op.taskId,
        op.actorId,
        op.externalId,
        JSON.stringify(op.plan),
        op.tokenHash,
        false,
        op.leaseOwner,
        op.leaseExpiresAt,
        op.at,
        op.requestId,
      ],
    );
  }

  async insertPlannedSteps(operationId: string, steps: readonly PlannedStep[]): Promise<void> {
    for (const [index, step] of steps.entries()) {
      await this.sql.run(
        `INSERT INTO creation_steps (operation_id, step_index, kind, params, state, attempts) VALUES ($1, $2, $3, $4, 'planned', 0)`,
        [operationId, index, step.kind, JSON.stringify(step.params)],
      );
    }
  }

  /** Draws the workspace's next task number, locking the workspace row until commit: creates in one workspace are
   *  serialized, so WIP admission and numbering are exact and a rollback returns the number (gapless). */
  async drawTaskNumber(workspaceId: string): Promise<{ number: number; prefix: string } | undefined> {
    const row = await this.sql.one<{ task_sequence: unknown; prefix: unknown }>(
      'UPDATE workspaces SET task_sequence = task_sequence + 1 WHERE id = $1 RETURNING task_sequence, prefix',
      [workspaceId],
    );
    return row ? { number: num(row.task_sequence), prefix: str(row.prefix) } : undefined;
  }

  /**
   * drawTaskNumber for a zero-step create (SPEC §4.3), which also reads its target in the same statement: the step
   * (the one named, or the workspace's first) with its WIP limit, the working-folder root, and whether a named parent
   * is a task of the workspace — what validation reads (SPEC §4.1 step 6). Undefined when the workspace is gone.
   * The WIP count is NOT read here: on PostgreSQL this statement's snapshot may predate the create that held the
   * workspace lock before it, so admission counts in a later statement (wipOccupancy).
   */
  async drawSettledNumber(
    workspaceId: string,
    stepId: string | null,
    parentId: string | null,
  ): Promise<SettledDraw | undefined> {
    // The subqueries name the workspace through the updated row, and their parameters only in primary-key
    // equalities: SQLite (built with STAT4) re-prepares a statement on every execution once a parameter meets a
    // column whose statistics could change its plan — measured at ~300 µs per create after ANALYZE.
    const step = (column: string) => `CASE WHEN CAST($2 AS text) IS NULL
         THEN (SELECT f.${column} FROM workflow_steps f WHERE f.workspace_id = workspaces.id ORDER BY f.position LIMIT 1)
         ELSE (SELECT n.${column} FROM workflow_steps n WHERE n.id = $2 AND n.workspace_id = workspaces.id) END`;
    const row = await this.sql.one<{
      task_sequence: unknown;
      prefix: unknown;
      root_path: unknown;
      step_id: unknown;
      wip_limit: unknown;
      parent_held: unknown;
    }>(
      `UPDATE workspaces SET task_sequence = task_sequence + 1 WHERE id = $1
       RETURNING task_sequence, prefix, root_path, ${step('id')} AS step_id, ${step('wip_limit')} AS wip_limit,
         CASE WHEN CAST($3 AS text) IS NULL THEN 1
           WHEN (SELECT p.workspace_id FROM tasks p WHERE p.id = $3) = workspaces.id THEN 1 ELSE 0 END AS parent_held`,
      [workspaceId, stepId, parentId],
    );
    if (!row) return undefined;
    return {
      number: num(row.task_sequence),
      prefix: str(row.prefix),
      rootPath: strOrNull(row.root_path),
      stepId: strOrNull(row.step_id),
      wipLimit: numOrNull(row.wip_limit),
      parentHeld: num(row.parent_held) === 1,
    };
  }

  /** The step's WIP limit and, when it has one, its unarchived tasks, in one statement; undefined if no such step. */
  async wipOccupancy(stepId: string): Promise<{ wipLimit: number | null; active: number } | undefined> {
    const row = await this.sql.one<{ wip_limit: unknown; n: unknown }>(
      `SELECT s.wip_limit, CASE WHEN s.wip_limit IS NULL THEN 0
         ELSE (SELECT COUNT(*) FROM tasks t WHERE t.step_id = s.id AND t.archived_at IS NULL) END AS n
       FROM workflow_steps s WHERE s.id = $1`,
      [stepId],
    );
    if (!row) return undefined;
    return {
      wipLimit: row.wip_limit === null || row.wip_limit === undefined ? null : num(row.wip_limit),
      active: num(row.n),
    };
  }

  /** SPEC §4.3 zero-step: the operation `completed`, no lease — a compact record (SPEC §9) without token, without
   *  plan when it is the empty one, and without outcome or event id (compactOutcome: its task's revision 1 holds the
   *  event) — inserted in the same transaction as its task. */
  async insertCompletedOperation(op: CompletedOperation): Promise<void> {
    await this.sql.run(
      `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, outcome, event_id, error, created_at, updated_at, finished_at,
         request_id)
       VALUES ($1, $2, $3, $4, $5, 'completed', $6, NULL, $7, 0, NULL, NULL, NULL, NULL, NULL, $8, $8, $8, $9)`,
      [
        op.id,
        op.workspaceId,
        op.taskId,
        op.actorId,
        op.externalId,
        op.plan === null ? null : JSON.stringify(op.plan),
        false,
        op.at,
        op.requestId,
      ],
    );
  }

  // ---- the operation ------------------------------------------------------------------------------------------

  async findOperation(operationId: string): Promise<OperationRecord | undefined> {
    const row = await this.sql.one<{
      id: unknown;
      state: unknown;
      outcome: unknown;
      compact_event_id: unknown;
      compact_event: unknown;
      task_id: unknown;
      token_hash: unknown;
      error: unknown;
    }>(
      `SELECT o.id, o.state, o.outcome, o.token_hash, o.error, o.task_id, r.event_id AS compact_event_id,
         r.event_type IS NOT NULL AS compact_event
       FROM creation_operations o
       LEFT JOIN task_revisions r ON o.state = 'completed' AND o.outcome IS NULL AND r.task_id = o.task_id AND r.revision = 1
       WHERE o.id = $1`,
      [operationId],
    );
    if (!row) return undefined;
    const compact = bool(row.compact_event) ? readEventId(row.compact_event_id, row.task_id, 1) : undefined;
    return {
      id: str(row.id),
      state: str(row.state) as OperationState,
      outcome: row.outcome ? json<StoredOutcome>(row.outcome) : compact === undefined ? null : compactOutcome(compact),
      tokenHash: strOrNull(row.token_hash),
      error: strOrNull(row.error),
    };
  }

  /**
   * SPEC §4.2 / §6, the fence: proves `fence` still owns its operation inside the current transaction. The proof is
   * an UPDATE of the operation row: it holds the row lock until commit (a concurrent claim waits) and matches nothing
   * once a claim has bumped the generation — so it throws LeaseLostError and a stale owner's transaction rolls back.
   */
  async assertOwner(fence: Fence): Promise<void> {
    const n = await this.sql.run('UPDATE creation_operations SET updated_at = $3 WHERE id = $1 AND generation = $2', [
      fence.operationId,
      fence.generation,
      new Date().toISOString(),
    ]);
    if (n === 0) throw new LeaseLostError(fence.operationId);
  }

  /** Extends an open operation's lease; false once a newer generation owns it (or it has ended). */
  async extendLease(fence: Fence, until: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE creation_operations SET lease_expires_at = $3 WHERE id = $1 AND generation = $2
         AND state IN ('preparing', 'completing', 'aborting')`,
      [fence.operationId, fence.generation, until],
    );
    return n > 0;
  }

  async extendRunningStepLeases(operationId: string, until: string): Promise<void> {
    await this.sql.run(
      "UPDATE creation_steps SET lease_expires_at = $2 WHERE operation_id = $1 AND state = 'running'",
      [operationId, until],
    );
  }

  /** SPEC §7, holder `preparing`: its operation's Complete will yield CreatedIdentityLost. False if not preparing. */
  async markIdentityReleased(taskId: string, at: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE creation_operations SET identity_released = $2, updated_at = $3 WHERE task_id = $1 AND state = 'preparing'`,
      [taskId, true, at],
    );
    return n > 0;
  }

  /** The state of the operation creating `taskId` (release tells `aborting` from `completing`, SPEC §7). */
  async findOperationStateOfTask(taskId: string): Promise<OperationState | undefined> {
    const row = await this.sql.one<{ state: unknown }>(
      'SELECT state FROM creation_operations WHERE task_id = $1 ORDER BY created_at DESC LIMIT 1',
      [taskId],
    );
    return row ? (str(row.state) as OperationState) : undefined;
  }

  // ---- Complete (SPEC §4.3) -----------------------------------------------------------------------------------

  /** Phase A, the task row (taken first: the lock order of release and delete). False unless it was preparing. */
  async markTaskCompleting(taskId: string): Promise<boolean> {
    return (
      (await this.sql.run(
        "UPDATE tasks SET creation_state = 'completing' WHERE id = $1 AND creation_state = 'preparing'",
        [taskId],
      )) > 0
    );
  }

  /** Phase A, the operation, fenced by the generation in the same statement: a stale owner's changes nothing. */
  async markOperationCompleting(fence: Fence, at: string): Promise<boolean> {
    const n = await this.sql.run(
      "UPDATE creation_operations SET state = 'completing', updated_at = $3 WHERE id = $1 AND generation = $2 AND state IN ('preparing', 'completing')",
      [fence.operationId, fence.generation, at],
    );
    return n > 0;
  }

  /** Phase B: stamps the settle only if the task still holds the normalized identity (SPEC §4.3: row count). */
  async settleTask(taskId: string, externalId: string, at: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(
      `UPDATE tasks SET external_id_settled_at = $3, creation_state = 'completed', revision = 1, updated_at = $3
       WHERE id = $1 AND external_id = $2 AND external_id_settled_at IS NULL RETURNING ${TASK_COLUMNS}`,
      [taskId, externalId, at],
    );
    return row ? toTask(row) : undefined;
  }

  /** Phase B without a stamp (no identity, or it was released while preparing). Undefined when the task is gone. */
  async completeTask(taskId: string, at: string): Promise<Task | undefined> {
    const row = await this.sql.one<TaskRow>(
      `UPDATE tasks SET creation_state = 'completed', revision = 1, updated_at = $2
       WHERE id = $1 AND creation_state = 'completing' RETURNING ${TASK_COLUMNS}`,
      [taskId, at],
    );
    return row ? toTask(row) : undefined;
  }

  /** The last write of phase B, fenced by the generation: false for a stale owner (its transaction must roll back). */
  async finishCompleted(fence: Fence, outcome: StoredOutcome, at: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE creation_operations SET state = 'completed', outcome = $2, event_id = $3, error = NULL, lease_owner = NULL,
         lease_expires_at = NULL, updated_at = $4, finished_at = $4 WHERE id = $1 AND generation = $5`,
      [fence.operationId, JSON.stringify(outcome), outcome.event_id ?? null, at, fence.generation],
    );
    return n > 0;
  }

  // ---- Abort (SPEC §4.4) --------------------------------------------------------------------------------------

  /** → `aborting`, keeping the first error recorded. */
  async markAborting(operationId: string, error: string): Promise<void> {
    await this.sql.run("UPDATE creation_operations SET state = 'aborting', error = COALESCE(error, $2) WHERE id = $1", [
      operationId,
      error,
    ]);
  }

  /** Steps whose outcome is unknown or still running (they block Abort and Complete). */
  async countOpenSteps(operationId: string): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM creation_steps WHERE operation_id = $1 AND state IN ('unknown', 'running')",
      [operationId],
    );
    return num(row?.n ?? 0);
  }

  /** Removes the task row of an aborting creation (freeing the identity); a task that got further is kept. */
  async removePreparingTask(taskId: string): Promise<void> {
    await this.sql.run("DELETE FROM tasks WHERE id = $1 AND creation_state = 'preparing'", [taskId]);
  }

  async markAborted(operationId: string, at: string): Promise<void> {
    await this.sql.run(
      `UPDATE creation_operations SET state = 'aborted', outcome = $2, lease_owner = NULL, lease_expires_at = NULL,
         updated_at = $3, finished_at = $3 WHERE id = $1`,
      [operationId, JSON.stringify({ kind: 'aborted' } satisfies StoredOutcome), at],
    );
  }

  // ---- steps (SPEC §5) ----------------------------------------------------------------------------------------

  async loadSteps(operationId: string): Promise<StepRecord[]> {
    const rows = await this.sql.query<StepRow>(
      `SELECT step_index, kind, params, state, attempts, evidence, error, compensation_state, lease_expires_at
       FROM creation_steps WHERE operation_id = $1 ORDER BY step_index`,
      [operationId],
    );
    return rows.map(toStep);
  }

  /** Applies `change` to one step, only while it is in state `expected` when given; the number of rows changed. */
  async changeStep(operationId: string, index: number, change: StepChange, expected?: StepState): Promise<number> {
    const params: unknown[] = [operationId, index];
    const sets = change.attempt ? ['attempts = attempts + 1'] : [];
    for (const [key, column] of Object.entries(STEP_COLUMNS) as Array<[keyof typeof STEP_COLUMNS, string]>) {
      const value = change[key];
      if (value === undefined) continue;
      params.push(key === 'evidence' ? JSON.stringify(value) : value);
      sets.push(`${column} = $${params.length}`);
    }
    if (sets.length === 0) throw new Error('changeStep: nothing to change');
    let where = 'operation_id = $1 AND step_index = $2';
    if (expected) {
      params.push(expected);
      where += ` AND state = $${params.length}`;
    }
    return this.sql.run(`UPDATE creation_steps SET ${sets.join(', ')} WHERE ${where}`, params);
  }

  /**
   * Takes back the attempt counted when a step started, for an attempt the database cut short (SPEC §4.4: a database
   * failure is never a step failure, so it must not bring the step closer to its bound). Never below zero.
   */
  async refundAttempt(operationId: string, index: number): Promise<number> {
    return this.sql.run(
      `UPDATE creation_steps SET attempts = attempts - 1 WHERE operation_id = $1 AND step_index = $2 AND attempts > 0`,
      [operationId, index],
    );
  }

  // ---- recovery claims (SPEC §6) ------------------------------------------------------------------------------

  /** Open operations whose lease ran out, oldest first; rows another claimer holds are skipped (PostgreSQL). */
  async listExpired(now: string, limit: number): Promise<ExpiredOperation[]> {
    const rows = await this.sql.query<{
      id: unknown;
      generation: unknown;
      lease_owner: unknown;
      lease_expires_at: unknown;
    }>(
      `SELECT id, generation, lease_owner, lease_expires_at FROM creation_operations
       WHERE state IN ('preparing', 'completing', 'aborting') AND lease_expires_at < $1
       ORDER BY lease_expires_at LIMIT ${Math.max(1, Math.floor(limit))}${this.dialect.skipLocked}`,
      [now],
    );
    return rows.map((r) => ({
      operationId: str(r.id),
      generation: num(r.generation),
      leaseOwner: strOrNull(r.lease_owner),
      leaseExpiresAt: strOrNull(r.lease_expires_at),
    }));
  }

  /** Compare-and-set on the generation seen: of two claimers exactly one moves it, fencing out every older owner. */
  async takeOver(
    seen: Fence,
    owner: string,
    until: string,
    now: string,
  ): Promise<Omit<ClaimedOperation, 'requestId'> | undefined> {
    const op = await this.sql.one<Record<string, unknown>>(
      `UPDATE creation_operations SET generation = generation + 1, lease_owner = $3, lease_expires_at = $4, updated_at = $5
       WHERE id = $1 AND generation = $2 AND lease_expires_at < $5
       RETURNING id, task_id, workspace_id, actor_id, external_id, plan, generation`,
      [seen.operationId, seen.generation, owner, until, now],
    );
    if (!op) return undefined;
    return {
      operationId: str(op.id),
      generation: num(op.generation),
      taskId: str(op.task_id),
      workspaceId: str(op.workspace_id),
      actorId: str(op.actor_id),
      externalId: strOrNull(op.external_id),
      plan: json<CreationPlan>(op.plan),
    };
  }

  // ---- history (SPEC §6, §13) ---------------------------------------------------------------------------------

  /**
   * Appends one entry to the operation's history (rare paths only: takeovers, reconciled steps, aborts, failed
   * attempts). The id is time-ordered (UUIDv7, monotonic in a process), so entries stamped in the same millisecond
   * read back in the order they were written.
   */
  async recordHistory(h: HistoryRecord): Promise<void> {
    const { kind, ...detail } = h.event;
    await this.sql.run(
      'INSERT INTO creation_history (id, operation_id, at, kind, generation, lease_owner, detail, request_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [orderedId(), h.operationId, h.at, kind, h.generation, h.leaseOwner, JSON.stringify(detail), h.requestId],
    );
  }
}
