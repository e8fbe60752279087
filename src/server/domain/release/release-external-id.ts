// SPEC §7 Release: an operator action that unbinds an identity and keeps the task. Guarded by a caller-generated
// Idempotency-Key; the release operation is replay evidence only — it never owns or reserves an identity.
import { createHash, randomUUID } from 'node:crypto';
import { can, type Actor } from '../../auth/actor';
import { isExternalIdViolation, dbErrorInfo } from '../../db/dialect';
import { insertRevision, TASK_COLUMNS, toTask } from '../../db/repositories/tasks';
import type { Sql } from '../../db/types';
import { json, num, strOrNull } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { insertOutboxEvent } from '../events/outbox';
import { requireExternalId } from '../identity/normalize';
import { toTaskBody } from '../tasks/task';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReleaseResult {
  /** 204 released; 404 nothing held it. Both are stored and replayed. */
  status: 204 | 404;
  body?: { error: string };
  replayed: boolean;
  releaseId: string;
  holderTaskId: string | null;
}

export interface ReleaseInput {
  workspaceId: string;
  rawExternalId: unknown;
  idempotencyKey: unknown;
  /** Where the request came from, for the audit record (`rest`, `trpc`, `console`, `cli`). */
  source: string;
}

export function requestHash(method: string, workspaceId: string, externalId: string, actorId: string): string {
  return createHash('sha256').update(JSON.stringify([method, workspaceId, externalId, actorId])).digest('hex');
}

export async function releaseExternalId(services: Services, actor: Actor, input: ReleaseInput): Promise<ReleaseResult> {
  // Unauthorized → the same 404 as "nothing holds it", before anything is validated.
  if (!can(actor, input.workspaceId, 'release')) throw new DomainError('task_not_found');
  const key = input.idempotencyKey;
  if (key === undefined || key === null || key === '') throw new DomainError('idempotency_key_required');
  if (typeof key !== 'string' || !UUID.test(key)) throw new DomainError('idempotency_key_invalid');
  const externalId = requireExternalId(input.rawExternalId);
  services.readiness.requireIdentity();
  const hash = requestHash('release', input.workspaceId, externalId, actor.id);

  for (let attempt = 0; ; attempt++) {
    try {
      return await services.db.transaction((tx) => releaseOnce(tx, actor, input, key.toLowerCase(), externalId, hash));
    } catch (err) {
      // Two requests with one key racing: the loser's insert hits the key's unique index; run again to replay.
      if (attempt === 0 && dbErrorInfo(err)?.uniqueViolation && !isExternalIdViolation(err)) continue;
      throw err;
    }
  }
}

async function releaseOnce(
  tx: Sql,
  actor: Actor,
  input: ReleaseInput,
  key: string,
  externalId: string,
  hash: string,
): Promise<ReleaseResult> {
  const prior = await tx.one<Record<string, unknown>>(
    'SELECT id, request_hash, result_status, result_body, holder_task_id FROM release_operations WHERE workspace_id = $1 AND idempotency_key = $2',
    [input.workspaceId, key],
  );
  if (prior) {
    // Same key, same request → the stored result, without looking at the current holder.
    if (prior.request_hash !== hash) throw new DomainError('idempotency_key_conflict');
    const status = num(prior.result_status) as 204 | 404;
    return {
      status,
      body: prior.result_body ? json<{ error: string }>(prior.result_body) : undefined,
      replayed: true,
      releaseId: String(prior.id),
      holderTaskId: strOrNull(prior.holder_task_id),
    };
  }

  const lock = tx.dialect === 'postgres' ? ' FOR UPDATE' : '';
  const row = await tx.one<Record<string, unknown>>(
    `SELECT ${TASK_COLUMNS} FROM tasks WHERE workspace_id = $1 AND external_id = $2${lock}`,
    [input.workspaceId, externalId],
  );
  const at = new Date().toISOString();
  let status: 204 | 404 = 204;
  let holderTaskId: string | null = null;

  if (!row) {
    status = 404;
  } else {
    const holder = toTask(row);
    holderTaskId = holder.id;
    if (holder.creationState === 'completing') {
      // Nothing changes and nothing is stored as final: the caller retries with the same key.
      throw new DomainError('creation_completing');
    }
    if (holder.creationState === 'completed') {
      const updated = await tx.one<Record<string, unknown>>(
        `UPDATE tasks SET external_id = NULL, external_id_settled_at = NULL, revision = revision + 1, updated_at = $3
         WHERE id = $1 AND external_id = $2 RETURNING ${TASK_COLUMNS}`,
        [holder.id, externalId, at],
      );
      if (!updated) throw new DomainError('creation_completing');
      const task = toTask(updated);
      await insertRevision(tx, task, 'release', actor.id, toTaskBody(task), at);
      await insertOutboxEvent(tx, { id: randomUUID(), type: 'task.updated', task, at });
    } else {
      // Preparing: free the identity now; the operation's Complete will yield CreatedIdentityLost. No event now.
      const cleared = await tx.run(
        `UPDATE tasks SET external_id = NULL, external_id_settled_at = NULL WHERE id = $1 AND external_id = $2 AND creation_state = 'preparing'`,
        [holder.id, externalId],
      );
      const marked = await tx.run(
        `UPDATE creation_operations SET identity_released = $2, updated_at = $3 WHERE task_id = $1 AND state = 'preparing'`,
        [holder.id, true, at],
      );
      if (cleared === 0 || marked === 0) throw new DomainError('creation_completing');
    }
  }

  const releaseId = randomUUID();
  const body = status === 404 ? { error: 'task not found' } : undefined;
  await tx.run(
    `INSERT INTO release_operations (id, workspace_id, idempotency_key, request_hash, actor_id, source, external_id,
       holder_task_id, result_status, result_body, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [releaseId, input.workspaceId, key, hash, actor.id, input.source, externalId, holderTaskId, status, body ? JSON.stringify(body) : null, at],
  );
  return { status, body, replayed: false, releaseId, holderTaskId };
}
