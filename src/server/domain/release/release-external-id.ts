// SPEC §7 Release: an operator action that unbinds an identity and keeps the task. Guarded by a caller-generated
// Idempotency-Key; the release operation is replay evidence only — it never owns or reserves an identity.
import { createHash, randomUUID } from 'node:crypto';
import { v7 as orderedId } from 'uuid';
import { can, type Actor } from '../access';
import { dbErrorInfo, isExternalIdViolation } from '../../db/errors';
import type { TxRepositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { requireExternalId } from '../identity/normalize';
import { ZIdempotencyKey } from '../tasks/schemas';
import { toTaskBody } from '../../model/task';
import { characterCount, tooLongMessage } from '../text';

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
  /**
   * Why, optional (shown in the identity's history): stored with the release record, never part of the request hash.
   */
  rawReason?: unknown;
  /** SPEC §13: the X-Request-Id of the request, kept with the release (or with the attempt a replay or conflict is). */
  requestId?: string;
}

export const MAX_REASON_CHARS = 500;
const EDGE_WHITE_SPACE = /^\p{White_Space}+|\p{White_Space}+$/gu;

/** The reason as stored: trimmed, `null` when absent or blank; one line of text of at most 500 characters. */
export function normalizeReason(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw new DomainError('invalid_payload', 'reason must be a string');
  if (/[\u0000-\u001f\u007f]/.test(raw))
    throw new DomainError('validation_failed', 'reason: control characters are not allowed');
  // SPEC §10: text the store cannot keep is refused as text, in the words of every other field (domain/text.ts).
  if (!raw.isWellFormed()) throw new DomainError('invalid_payload', 'reason must be well-formed Unicode');
  const reason = raw.replace(EDGE_WHITE_SPACE, '');
  if (characterCount(reason) > MAX_REASON_CHARS)
    throw new DomainError('validation_failed', `reason: ${tooLongMessage(MAX_REASON_CHARS)}`);
  return reason === '' ? null : reason;
}

/**
 * SPEC §7: what makes two releases "the same request". The reason is deliberately not in it: it annotates the
 * release, it does not change what the release does, and an operator retrying after a lost answer may have edited
 * it — that retry must replay, not fail with idempotency_key_conflict. The stored reason is the first stored one.
 */
export function requestHash(method: string, workspaceId: string, externalId: string, actorId: string): string {
  return createHash('sha256')
    .update(JSON.stringify([method, workspaceId, externalId, actorId]))
    .digest('hex');
}

export async function releaseExternalId(services: Services, actor: Actor, input: ReleaseInput): Promise<ReleaseResult> {
  // Counted in memory by result (never a write, so a refused release stays free): released, not_found, or the refusal's
  // code.
  try {
    const result = await decideRelease(services, actor, input);
    services.metrics.releases.inc({
      result: result.status === 204 ? 'released' : 'not_found',
      replayed: String(result.replayed),
    });
    return result;
  } catch (err) {
    services.metrics.releases.inc({ result: err instanceof DomainError ? err.code : 'error', replayed: 'false' });
    throw err;
  }
}

async function decideRelease(services: Services, actor: Actor, input: ReleaseInput): Promise<ReleaseResult> {
  // Unauthorized → the same 404 as "nothing holds it", before anything is validated.
  if (!can(actor, input.workspaceId, 'release')) throw new DomainError('task_not_found');
  const key = input.idempotencyKey;
  if (key === undefined || key === null || key === '') throw new DomainError('idempotency_key_required');
  if (typeof key !== 'string' || !ZIdempotencyKey.safeParse(key).success)
    throw new DomainError('idempotency_key_invalid');
  const externalId = requireExternalId(input.rawExternalId);
  const reason = normalizeReason(input.rawReason);
  services.readiness.requireIdentity();
  const hash = requestHash('release', input.workspaceId, externalId, actor.id);

  for (let attempt = 0; ; attempt++) {
    try {
      const result = await services.store.transaction((tx) =>
        releaseOnce(tx, actor, input, key.toLowerCase(), externalId, hash, reason),
      );
      if (result.replayed) await noteAttempt(services, actor, input, externalId, 'replay', result.releaseId);
      return result;
    } catch (err) {
      // Two requests with one key racing: the loser's insert hits the key's unique index; run again to replay.
      if (attempt === 0 && dbErrorInfo(err)?.uniqueViolation && !isExternalIdViolation(err)) continue;
      if (err instanceof DomainError && err.code === 'idempotency_key_conflict') {
        const prior = await services.store.releases.findByKey(input.workspaceId, key.toLowerCase());
        if (prior) await noteAttempt(services, actor, input, externalId, 'conflict', prior.id);
      }
      throw err;
    }
  }
}

/**
 * SPEC §13: a replay or a key conflict made no release of its own, so the release it met keeps a note of it (who,
 * when, which channel and request id; for a conflict, the external id the other request named). Written after the
 * answer is decided, best effort: a note that cannot be written never changes the answer.
 */
async function noteAttempt(
  services: Services,
  actor: Actor,
  input: ReleaseInput,
  externalId: string,
  kind: 'replay' | 'conflict',
  releaseId: string,
) {
  try {
    await services.store.releases.insertAttempt({
      id: orderedId(),
      releaseId,
      workspaceId: input.workspaceId,
      kind,
      actorId: actor.id,
      source: input.source,
      externalId,
      requestId: input.requestId ?? null,
      createdAt: new Date().toISOString(),
    });
  } catch (err) {
    services.log.warn({ release_id: releaseId, err: (err as Error).message }, 'could not record a release attempt');
  }
}

async function releaseOnce(
  tx: TxRepositories,
  actor: Actor,
  input: ReleaseInput,
  key: string,
  externalId: string,
  hash: string,
  reason: string | null,
): Promise<ReleaseResult> {
  const prior = await tx.releases.findByKey(input.workspaceId, key);
  if (prior) {
    // Same key, same request → the stored result, without looking at the current holder.
    if (prior.requestHash !== hash) throw new DomainError('idempotency_key_conflict');
    return {
      status: prior.resultStatus,
      body: prior.resultBody ?? undefined,
      replayed: true,
      releaseId: prior.id,
      holderTaskId: prior.holderTaskId,
    };
  }

  const holder = await tx.tasks.findHolderForUpdate(input.workspaceId, externalId);
  const at = new Date().toISOString();
  let status: 204 | 404 = 204;

  if (!holder) {
    status = 404;
  } else if (holder.creationState === 'completing') {
    // Nothing changes and nothing is stored as final: the caller retries with the same key.
    throw new DomainError('creation_completing');
  } else if (holder.creationState === 'completed') {
    const task = await tx.tasks.releaseSettledIdentity(holder.id, externalId, at);
    if (!task) throw new DomainError('creation_completing');
    await tx.events.insertRevision(task, 'release', actor.id, toTaskBody(task), at, {
      id: randomUUID(),
      type: 'task.updated',
    });
  } else {
    // Preparing: free the identity now; the operation's Complete will yield CreatedIdentityLost. No event now.
    const cleared = await tx.tasks.releasePreparingIdentity(holder.id, externalId);
    const marked = await tx.creation.markIdentityReleased(holder.id, at);
    // Its operation moved on: completing, or aborting (SPEC §7: the abort removes the task; a retry finds no holder).
    // Throwing rolls the clear back: nothing changes, nothing is stored as final.
    if (!cleared || !marked) {
      throw new DomainError(
        (await tx.creation.findOperationStateOfTask(holder.id)) === 'aborting'
          ? 'creation_aborting'
          : 'creation_completing',
      );
    }
  }

  // Time-ordered (UUIDv7): releases stamped in the same millisecond list in the order they happened.
  const releaseId = orderedId();
  const body = status === 404 ? { error: 'task not found' } : undefined;
  await tx.releases.insert({
    id: releaseId,
    workspaceId: input.workspaceId,
    idempotencyKey: key,
    requestHash: hash,
    actorId: actor.id,
    source: input.source,
    externalId,
    holderTaskId: holder?.id ?? null,
    resultStatus: status,
    resultBody: body ?? null,
    createdAt: at,
    reason,
    requestId: input.requestId ?? null,
  });
  return { status, body, replayed: false, releaseId, holderTaskId: holder?.id ?? null };
}
