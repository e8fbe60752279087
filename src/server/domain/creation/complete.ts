// SPEC §4.3 — Complete. It first verifies every step's evidence (an unknown step blocks it; a step that no
// longer verifies aborts). Phase A commits `preparing → completing` (from here Abort and release are refused);
// phase B, one transaction, settles the identity only if the task still holds it, writes revision 1 and
// exactly one `task.created` outbox event copied from the committed row.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/types';
import { findTaskById, insertRevision, TASK_COLUMNS, toTask, type TaskRow } from '../../db/repositories/tasks';
import { json, str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { insertOutboxEvent } from '../events/outbox';
import type { Task } from '../tasks/task';
import { toTaskBody } from '../tasks/task';
import { dbErrorInfo } from '../../db/dialect';
import { abortOperation } from './abort';
import { hashToken } from './begin';
import { assertFence, LeaseLostError, UnknownStepError } from './fence';
import type { CreationHandle } from './operation';
import { stableId } from './stable-id';
import { oneStatement, phaseAInOneStatement, phaseBInOneStatement } from './one-statement';
import { STEP_KINDS } from './steps';
import { loadError, loadSteps, stepContext, storeError, updateStep } from './steps/records';

export type CompleteResult =
  | { kind: 'created' | 'created_identity_lost'; task: Task; eventId: string }
  /** The task was deleted while its creation ran: the surface's not-found, and no dispatch. */
  | { kind: 'gone' };

interface StoredOutcome {
  kind: 'created' | 'created_identity_lost' | 'gone';
  event_id?: string;
}

interface OperationRow {
  state: string;
  outcome: StoredOutcome | null;
}

async function readOperation(sql: Sql, handle: CreationHandle): Promise<OperationRow | undefined> {
  const op = await sql.one<{ state: unknown; outcome: unknown; token_hash: unknown }>(
    'SELECT state, outcome, token_hash FROM creation_operations WHERE id = $1',
    [handle.operationId],
  );
  if (!op) return undefined;
  // A recovery handle has no token: its authority is the generation it claimed (checked by every fenced write).
  if (!handle.recovered && str(op.token_hash) !== hashToken(handle.token)) throw new Error('creation handle does not match its operation');
  return { state: str(op.state), outcome: op.outcome ? json<StoredOutcome>(op.outcome) : null };
}

async function replayOf(sql: Sql, handle: CreationHandle, op: OperationRow): Promise<CompleteResult> {
  if (op.state !== 'completed' || !op.outcome || op.outcome.kind === 'gone') return { kind: 'gone' };
  const task = await findTaskById(sql, handle.taskId);
  return task ? { kind: op.outcome.kind, task, eventId: op.outcome.event_id ?? '' } : { kind: 'gone' };
}

/**
 * Idempotent per handle: a replay returns the stored outcome and event id. An ambiguous commit (the database
 * went away around COMMIT) is retried with the same handle — the replay check tells whether it landed — and is
 * never turned into an Abort.
 */
export async function complete(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      // The creating request's first call knows its operation is still `preparing` (it made it and holds the
      // lease); every other call — a retry after an ambiguous commit, a recovery handle — reads what is stored.
      return await completeOnce(services, handle, attempt === 1 && !handle.recovered);
    } catch (err) {
      if (attempt >= 5 || !dbErrorInfo(err)?.unavailable) throw err;
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}

async function completeOnce(services: Services, handle: CreationHandle, fresh: boolean): Promise<CompleteResult> {
  const { db, failpoints } = services;
  const key = handle.externalId ?? handle.plan.steps.length.toString();
  const op: OperationRow | undefined = fresh ? { state: 'preparing', outcome: null } : await readOperation(db, handle);
  if (!op) return { kind: 'gone' };
  if (op.state === 'completed' || op.state === 'aborted') return replayOf(db, handle, op);
  if (op.state === 'aborting') throw new Error('cannot complete an aborting creation operation');

  if (op.state === 'preparing') {
    // SPEC §4.3: every planned step succeeded, with evidence that still verifies. Unknown blocks Complete.
    const failure = handle.plan.steps.length === 0 ? undefined : await verifySteps(services, handle);
    if (failure) {
      await abortOperation(services, handle, failure);
      throw failure;
    }
    // Phase A: preparing → completing, task row first (the same lock order as release and delete). The creating
    // request's own handle sends it as one statement on PostgreSQL (issue 4); anything unusual comes back here.
    const quick = fresh && oneStatement(db) ? await phaseAInOneStatement(db, handle) : undefined;
    const phaseA = quick ? 'completing' : await db.transaction(async (tx) => {
      const moved = await tx.run("UPDATE tasks SET creation_state = 'completing' WHERE id = $1 AND creation_state = 'preparing'", [
        handle.taskId,
      ]);
      if (moved === 0) {
        await assertFence(tx, handle);
        const task = await findTaskById(tx, handle.taskId);
        if (!task) {
          // Deleted while its creation ran: its effects are compensated by Abort, and no dispatch follows.
          await tx.run("UPDATE creation_operations SET state = 'aborting', error = $2 WHERE id = $1", [handle.operationId, GONE]);
          return 'gone' as const;
        }
        if (task.creationState !== 'completing') throw new Error(`cannot complete a task in state ${task.creationState}`);
      }
      // Fenced by the generation in the same statement (SPEC §4.2): a stale owner's phase A changes nothing.
      const n = await tx.run(
        "UPDATE creation_operations SET state = 'completing', updated_at = $3 WHERE id = $1 AND generation = $2 AND state IN ('preparing', 'completing')",
        [handle.operationId, handle.generation, new Date().toISOString()],
      );
      if (n === 0) {
        await assertFence(tx, handle);
        throw new Error('creation operation is no longer preparing');
      }
      return 'completing' as const;
    });
    if (phaseA === 'gone') return abortGone(services, handle);
  }
  await failpoints.hit('complete_between_phases', handle.externalId ?? key);

  // Phase B. One statement for the creating request's own handle when the task is as Begin wrote it (issue 4);
  // the transaction below handles every other case (identity lost, gone, lease lost, deferred start, recovery).
  const eventId = randomUUID();
  const settled =
    fresh && oneStatement(db) && handle.begun && handle.plan.startPolicy !== 'deferred'
      ? await phaseBInOneStatement(db, handle, handle.begun, eventId)
      : undefined;
  const result = settled ? { kind: 'created' as const, task: settled, eventId } : await db.transaction(async (tx): Promise<CompleteResult> => {
    const at = new Date().toISOString();
    let row: TaskRow | undefined;
    let kind: 'created' | 'created_identity_lost' = 'created';
    if (handle.externalId !== null) {
      // SPEC §4.3: stamp only if the task still holds the normalized identity, and check the row count.
      row = await tx.one<TaskRow>(
        `UPDATE tasks SET external_id_settled_at = $3, creation_state = 'completed', revision = 1, updated_at = $3
         WHERE id = $1 AND external_id = $2 AND external_id_settled_at IS NULL RETURNING ${TASK_COLUMNS}`,
        [handle.taskId, handle.externalId, at],
      );
      if (!row) kind = 'created_identity_lost';
    }
    row ??= await tx.one<TaskRow>(
      `UPDATE tasks SET creation_state = 'completed', revision = 1, updated_at = $2
       WHERE id = $1 AND creation_state = 'completing' RETURNING ${TASK_COLUMNS}`,
      [handle.taskId, at],
    );
    if (!row) {
      await assertFence(tx, handle);
      await tx.run("UPDATE creation_operations SET state = 'aborting', error = $2 WHERE id = $1", [handle.operationId, GONE]);
      return { kind: 'gone' };
    }
    const task = toTask(row);
    await insertRevision(tx, task, 'create', handle.actor.id, toTaskBody(task), at);
    await insertOutboxEvent(tx, { id: eventId, type: 'task.created', task, at });
    if (handle.plan.startPolicy === 'deferred') await insertDeferredIntent(tx, handle, at);
    await finishOperation(tx, handle, 'completed', { kind, event_id: eventId });
    return { kind, task, eventId };
  });
  if (result.kind === 'gone') return abortGone(services, handle);
  await failpoints.hit('after_complete', handle.externalId ?? key);
  return result;
}

const GONE = 'task was deleted while its creation ran';

async function abortGone(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  await abortOperation(services, handle, GONE);
  return { kind: 'gone' };
}

/** Every step succeeded and its evidence still verifies; else the error to abort with. Unknown throws. */
async function verifySteps(services: Services, handle: CreationHandle): Promise<DomainError | undefined> {
  for (const step of await loadSteps(services.db, handle.operationId)) {
    if (step.state === 'unknown' || step.state === 'running') throw new UnknownStepError(handle.operationId);
    if (step.state === 'failed') return loadError(step.error, step.kind);
    if (step.state === 'planned') return new DomainError('creation_step_failed', `${step.kind}: never ran`);
    const evidence = await STEP_KINDS[step.kind].verify(stepContext(services, handle, step), step.evidence);
    if (!evidence) {
      const error = new DomainError('creation_step_failed', `${step.kind}: evidence no longer verifies`);
      await updateStep(services, handle, step.index, "state = 'failed', error = $3", [storeError(error)]);
      return error;
    }
  }
  return undefined;
}

/** SPEC §5 deferred start: one start-when-unblocked intent, written with the completion (so never before it). */
async function insertDeferredIntent(tx: Sql, handle: CreationHandle, at: string): Promise<void> {
  await tx.run(
    `INSERT INTO launch_intents (id, workspace_id, task_id, session_id, profile_id, operation_id, step_index, kind, state,
       blocked_by, attempts, created_at, updated_at)
     VALUES ($1, $2, $3, NULL, $4, $5, -1, 'deferred', 'waiting', $6, 0, $7, $7) ON CONFLICT DO NOTHING`,
    [
      stableId(handle.operationId, -1, 'launch'),
      handle.workspaceId,
      handle.taskId,
      handle.plan.agentProfileId ?? null,
      handle.operationId,
      JSON.stringify(handle.plan.blockedBy),
      at,
    ],
  );
}

/** The last write of phase B, fenced by the generation: a stale owner's whole transaction rolls back. */
async function finishOperation(tx: Sql, handle: CreationHandle, state: 'completed', outcome: StoredOutcome): Promise<void> {
  const at = new Date().toISOString();
  const n = await tx.run(
    `UPDATE creation_operations SET state = $2, outcome = $3, event_id = $4, error = NULL, lease_owner = NULL,
       lease_expires_at = NULL, updated_at = $5, finished_at = $5 WHERE id = $1 AND generation = $6`,
    [handle.operationId, state, JSON.stringify(outcome), outcome.event_id ?? null, at, handle.generation],
  );
  if (n === 0) throw new LeaseLostError(handle.operationId);
}
