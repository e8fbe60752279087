// SPEC §12: legacy identity rows and their way out. A legacy row holds an identity with no settlement and no
// creation operation; it blocks readiness until an operator resolves it — settles it as it is, or releases its
// identity (the task stays) — through the CLI or the console (admins). Each resolution is audited like a release:
// who, when and through which channel (legacy_resolutions; a release also goes into the release history), and asks
// every process to re-attest, so readiness returns without a restart.
import { randomUUID } from 'node:crypto';
import { v7 as orderedId } from 'uuid';
import { can, type Actor } from '../access';
import type { AttestationResult } from '../../db/schema/attest';
import type { LegacyIdentity } from '../../db/repositories/legacy';
import type { TxRepositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { requestHash } from '../release/release-external-id';
import { toTaskBody, type Task } from '../../model/task';

export type { LegacyIdentity };
export type LegacyAction = 'settle' | 'release';
export const LEGACY_ACTIONS: readonly LegacyAction[] = ['settle', 'release'];

const LIST_LIMIT = 500;

/** The legacy rows of one workspace (its admins only; anyone else gets the 404 of a workspace that is not there),
 *  or of every workspace for an instance-wide actor (the CLI). */
export async function listLegacyIdentities(
  services: Pick<Services, 'store'>,
  actor: Actor,
  workspaceId?: string,
): Promise<LegacyIdentity[]> {
  if (workspaceId === undefined) {
    if (!actor.global) throw new DomainError('not_found');
    return services.store.legacy.list(LIST_LIMIT);
  }
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
  return services.store.legacy.list(LIST_LIMIT, workspaceId);
}

export interface LegacyResolution {
  resolutionId: string;
  action: LegacyAction;
  task: Task;
  /** The identity the row held. After `release` the task holds none. */
  externalId: string;
  /** Readiness as this process attested it right after the resolution. */
  readiness: AttestationResult;
}

/**
 * Resolves one legacy row: `settle` stamps the settlement as it is (the identity stays, the task counts as
 * completed; the task body does not change, so no revision or event), `release` frees the identity as a release of
 * a completed holder does (next revision, one `task.updated` event, a release record). A task that is not a legacy
 * row is a 409 and changes nothing; one the actor cannot administer is the 404 of a task that does not exist.
 */
export async function resolveLegacyIdentity(
  services: Pick<Services, 'store' | 'readiness'>,
  actor: Actor,
  input: {
    taskId: string;
    action: LegacyAction;
    source: string;
    /** The row must be in this workspace (the console). */ workspaceId?: string;
  },
): Promise<LegacyResolution> {
  if (!LEGACY_ACTIONS.includes(input.action))
    throw new DomainError('validation_failed', 'action: must be settle or release');
  const resolved = await services.store.transaction(async (tx) => {
    const task = await tx.tasks.findByIdForUpdate(input.taskId);
    if (!task || !can(actor, task.workspaceId, 'admin')) throw new DomainError('not_found');
    if (input.workspaceId !== undefined && task.workspaceId !== input.workspaceId) throw new DomainError('not_found');
    if (!task.externalId || !(await tx.legacy.isLegacy(task.id))) {
      throw new DomainError('conflict', `task ${task.identifier} is not a legacy identity row (nothing to resolve)`);
    }
    const at = new Date().toISOString();
    const after =
      input.action === 'settle'
        ? await tx.legacy.settle(task.id, at)
        : await releaseLegacy(tx, actor, task, input.source, at);
    if (!after)
      throw new DomainError('conflict', `task ${task.identifier} changed while it was being resolved; try again`);
    const resolutionId = randomUUID();
    await tx.legacy.insertResolution({
      id: resolutionId,
      workspaceId: task.workspaceId,
      taskId: task.id,
      externalId: task.externalId,
      action: input.action,
      actorId: actor.id,
      source: input.source,
      createdAt: at,
    });
    return { resolutionId, task: after, externalId: task.externalId };
  });
  // One fewer row blocks readiness: every process re-attests now, not at its next interval.
  const readiness = await requestAttestation(services, actor, input.source);
  return { ...resolved, action: input.action, readiness };
}

/** SPEC §7's release of a completed holder, recorded in the release history under a fresh key. */
async function releaseLegacy(
  tx: TxRepositories,
  actor: Actor,
  task: Task,
  source: string,
  at: string,
): Promise<Task | undefined> {
  const externalId = task.externalId!;
  const released = await tx.tasks.releaseSettledIdentity(task.id, externalId, at);
  if (!released) return undefined;
  await tx.events.insertRevision(released, 'release', actor.id, toTaskBody(released), at, {
    id: randomUUID(),
    type: 'task.updated',
  });
  await tx.releases.insert({
    id: orderedId(),
    workspaceId: task.workspaceId,
    idempotencyKey: randomUUID(),
    requestHash: requestHash('legacy_release', task.workspaceId, externalId, actor.id),
    actorId: actor.id,
    source,
    externalId,
    holderTaskId: task.id,
    resultStatus: 204,
    resultBody: null,
    createdAt: at,
    reason: null,
    requestId: null,
  });
  return released;
}

/**
 * SPEC §12 on demand: records a request every server process sees within about a second (readiness.ts `watch`),
 * and attests this process at once. Returns this process's answer.
 */
export async function requestAttestation(
  services: Pick<Services, 'store' | 'readiness'>,
  actor: Actor,
  source: string,
): Promise<AttestationResult> {
  await services.store.attestationRequests.insert({
    id: randomUUID(),
    actorId: actor.id,
    source,
    requestedAt: new Date().toISOString(),
  });
  return services.readiness.refresh(services.store.driver);
}

/** The surfaces' on-demand attestation: admins of `workspaceId` (the console), or an instance-wide actor (the CLI). */
export async function attestOnDemand(
  services: Pick<Services, 'store' | 'readiness'>,
  actor: Actor,
  input: { workspaceId?: string; source: string },
): Promise<AttestationResult> {
  const allowed = input.workspaceId === undefined ? actor.global : can(actor, input.workspaceId, 'admin');
  if (!allowed) throw new DomainError('not_found');
  return requestAttestation(services, actor, input.source);
}
