// SPEC §4.3 — Complete. Phase A commits `preparing → completing` (from here Abort and release are refused);
// phase B, one transaction, settles the identity only if the task still holds it, writes revision 1 and
// exactly one `task.created` outbox event copied from the committed row.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../db/types';
import { findTaskById, insertRevision, TASK_COLUMNS, toTask } from '../../db/repositories/tasks';
import { json, str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { insertOutboxEvent } from '../events/outbox';
import type { Task } from '../tasks/task';
import { toTaskBody } from '../tasks/task';
import { hashToken } from './begin';
import type { CreationHandle } from './operation';

export type CompleteResult =
  | { kind: 'created' | 'created_identity_lost'; task: Task; eventId: string }
  /** The task was deleted while its creation ran: the surface's not-found, and no dispatch. */
  | { kind: 'gone' };

interface StoredOutcome {
  kind: 'created' | 'created_identity_lost' | 'gone';
  event_id?: string;
}

async function storedOutcome(sql: Sql, handle: CreationHandle): Promise<CompleteResult | undefined> {
  const op = await sql.one<{ state: unknown; outcome: unknown; token_hash: unknown }>(
    'SELECT state, outcome, token_hash FROM creation_operations WHERE id = $1',
    [handle.operationId],
  );
  if (!op) return { kind: 'gone' };
  if (str(op.token_hash) !== hashToken(handle.token)) throw new Error('creation handle does not match its operation');
  if (op.state === 'aborted') return { kind: 'gone' };
  if (op.state !== 'completed' || !op.outcome) return undefined;
  const outcome = json<StoredOutcome>(op.outcome);
  if (outcome.kind === 'gone') return { kind: 'gone' };
  const task = await findTaskById(sql, handle.taskId);
  return task ? { kind: outcome.kind, task, eventId: outcome.event_id ?? '' } : { kind: 'gone' };
}

/** Idempotent per handle: a replay returns the stored outcome and event id. */
export async function complete(services: Services, handle: CreationHandle): Promise<CompleteResult> {
  const { db, failpoints } = services;
  const key = handle.externalId ?? handle.plan.steps.length.toString();
  const replay = await storedOutcome(db, handle);
  if (replay) return replay;

  // Phase A: preparing → completing, task row first (the same lock order as release and delete).
  const phaseA = await db.transaction(async (tx) => {
    const moved = await tx.run("UPDATE tasks SET creation_state = 'completing' WHERE id = $1 AND creation_state = 'preparing'", [
      handle.taskId,
    ]);
    if (moved === 0) {
      const task = await findTaskById(tx, handle.taskId);
      if (!task) {
        await finishOperation(tx, handle, 'aborted', { kind: 'gone' }, 'task was deleted while its creation ran');
        return 'gone' as const;
      }
      if (task.creationState !== 'completing') throw new Error(`cannot complete a task in state ${task.creationState}`);
    }
    await tx.run(
      "UPDATE creation_operations SET state = 'completing', updated_at = $3 WHERE id = $1 AND generation = $2 AND state IN ('preparing', 'completing')",
      [handle.operationId, handle.generation, new Date().toISOString()],
    );
    return 'completing' as const;
  });
  if (phaseA === 'gone') return { kind: 'gone' };
  await failpoints.hit('complete_between_phases', handle.externalId ?? key);

  // Phase B.
  const result = await db.transaction(async (tx): Promise<CompleteResult> => {
    const at = new Date().toISOString();
    let row: Record<string, unknown> | undefined;
    let kind: 'created' | 'created_identity_lost' = 'created';
    if (handle.externalId !== null) {
      // SPEC §4.3: stamp only if the task still holds the normalized identity, and check the row count.
      row = await tx.one(
        `UPDATE tasks SET external_id_settled_at = $3, creation_state = 'completed', revision = 1, updated_at = $3
         WHERE id = $1 AND external_id = $2 AND external_id_settled_at IS NULL RETURNING ${TASK_COLUMNS}`,
        [handle.taskId, handle.externalId, at],
      );
      if (!row) kind = 'created_identity_lost';
    }
    row ??= await tx.one(
      `UPDATE tasks SET creation_state = 'completed', revision = 1, updated_at = $2
       WHERE id = $1 AND creation_state = 'completing' RETURNING ${TASK_COLUMNS}`,
      [handle.taskId, at],
    );
    if (!row) {
      await finishOperation(tx, handle, 'aborted', { kind: 'gone' }, 'task was deleted while its creation ran');
      return { kind: 'gone' };
    }
    const task = toTask(row);
    await insertRevision(tx, task, 'create', handle.actor.id, toTaskBody(task), at);
    const eventId = randomUUID();
    await insertOutboxEvent(tx, { id: eventId, type: 'task.created', task, at });
    await finishOperation(tx, handle, 'completed', { kind, event_id: eventId });
    return { kind, task, eventId };
  });
  await failpoints.hit('after_complete', handle.externalId ?? key);
  return result;
}

async function finishOperation(
  tx: Sql,
  handle: CreationHandle,
  state: 'completed' | 'aborted',
  outcome: StoredOutcome,
  error?: string,
): Promise<void> {
  const at = new Date().toISOString();
  await tx.run(
    `UPDATE creation_operations SET state = $2, outcome = $3, event_id = $4, error = $5, lease_owner = NULL,
       lease_expires_at = NULL, updated_at = $6, finished_at = $6 WHERE id = $1`,
    [handle.operationId, state, JSON.stringify(outcome), outcome.event_id ?? null, error ?? null, at],
  );
}

export function assertHandle(handle: CreationHandle | undefined): CreationHandle {
  if (!handle) throw new DomainError('internal');
  return handle;
}
