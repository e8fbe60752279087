// SPEC §4.1 step 7 — Begin: one transaction that admits, numbers and inserts the task in `preparing`,
// records the operation and its planned steps, and writes revision 0. It emits no event.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { insertRevision, insertTask } from '../../db/repositories/tasks';
import { num, str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { toTaskBody, type Task } from '../tasks/task';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';
import { beginInOneStatement, oneStatement } from './one-statement';

export interface BeginInput {
  workspaceId: string;
  stepId: string;
  /** The step had a WIP limit when validated: admission must count under the lock (general path only). */
  wipLimited?: boolean;
  title: string;
  description: string | null;
  parentId: string | null;
  externalId: string | null;
  plan: CreationPlan;
  /** Test seam for the "a primary-key collision is never Found" guard. */
  taskId?: string;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function begin(services: Services, actor: Actor, input: BeginInput): Promise<{ handle: CreationHandle; task: Task }> {
  const { db } = services;
  const token = randomBytes(32).toString('base64url');
  const operationId = randomUUID();
  const now = new Date();
  const at = now.toISOString();

  const taskId = input.taskId ?? randomUUID();
  const leaseExpiresAt = new Date(now.getTime() + services.leaseMs).toISOString();

  const task =
    oneStatement(db) && input.wipLimited === false
      ? await beginInOneStatement(db, actor, {
          ...input,
          operationId,
          taskId,
          tokenHash: hashToken(token),
          leaseOwner: services.instanceId,
          leaseExpiresAt,
          at,
        }).then((t) => t ?? Promise.reject(new DomainError('task_not_created')))
      : await beginInTransaction(services, actor, input, { operationId, taskId, token, now, at, leaseExpiresAt });

  const handle: CreationHandle = {
    operationId,
    taskId: task.id,
    workspaceId: task.workspaceId,
    actor,
    plan: input.plan,
    externalId: task.externalId,
    token,
    generation: 0,
    begun: task,
  };
  // The `after_begin` failpoint is hit by createTask once the lease renewal is running.
  return { handle, task };
}

/** The general form: one BEGIN … COMMIT transaction (SQLite always; PostgreSQL when the step has a WIP limit). */
async function beginInTransaction(
  services: Services,
  actor: Actor,
  input: BeginInput,
  ids: { operationId: string; taskId: string; token: string; now: Date; at: string; leaseExpiresAt: string },
): Promise<Task> {
  const { operationId, taskId, token, at, leaseExpiresAt } = ids;
  return services.db.transaction(async (tx) => {
    // The operation and its planned steps first: they need no number, so the workspace lock below is held for
    // as few statements as possible.
    await tx.run(
      `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash,
         identity_released, generation, lease_owner, lease_expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'preparing', $6, $7, $8, 0, $9, $10, $11, $11)`,
      [
        operationId,
        input.workspaceId,
        taskId,
        actor.id,
        input.externalId,
        JSON.stringify(input.plan),
        hashToken(token),
        false,
        services.instanceId,
        leaseExpiresAt,
        at,
      ],
    );
    for (const [index, step] of input.plan.steps.entries()) {
      await tx.run(
        `INSERT INTO creation_steps (operation_id, step_index, kind, params, state, attempts) VALUES ($1, $2, $3, $4, 'planned', 0)`,
        [operationId, index, step.kind, JSON.stringify(step.params)],
      );
    }
    // Taking the workspace row serializes creates per workspace: WIP admission and numbering are exact, and a
    // rollback (identity taken, WIP full) returns the number, so identifiers stay gapless.
    const ws = await tx.one<{ task_sequence: unknown; prefix: unknown }>(
      'UPDATE workspaces SET task_sequence = task_sequence + 1 WHERE id = $1 RETURNING task_sequence, prefix',
      [input.workspaceId],
    );
    if (!ws) throw new DomainError('task_not_created');
    await admit(tx, input.stepId);

    const number = num(ws.task_sequence);
    const task: Task = {
      id: taskId,
      workspaceId: input.workspaceId,
      number,
      identifier: `${str(ws.prefix)}-${number}`,
      title: input.title,
      description: input.description,
      stepId: input.stepId,
      parentId: input.parentId,
      archivedAt: null,
      createdAt: at,
      updatedAt: at,
      revision: 0,
      creationState: 'preparing',
      externalId: input.externalId,
      externalIdSettledAt: null,
    };
    // A unique violation on uniq_tasks_external_id here rolls back the whole transaction (the caller re-reads).
    await insertTask(tx, task);
    await insertRevision(tx, task, 'begin', actor.id, toTaskBody(task), at);
    return task;
  });
}

/** WIP admission for the target step (SPEC §4.1 step 7), in one statement, under the workspace lock above. */
async function admit(tx: Sql, stepId: string): Promise<void> {
  const step = await tx.one<{ wip_limit: unknown; n: unknown }>(
    `SELECT s.wip_limit, CASE WHEN s.wip_limit IS NULL THEN 0
       ELSE (SELECT COUNT(*) FROM tasks t WHERE t.step_id = s.id AND t.archived_at IS NULL) END AS n
     FROM workflow_steps s WHERE s.id = $1`,
    [stepId],
  );
  if (!step) throw new DomainError('validation_failed', 'step_id: workflow step not found');
  if (step.wip_limit === null || step.wip_limit === undefined) return;
  if (num(step.n) >= num(step.wip_limit)) throw new DomainError('wip_limit_exceeded');
}
