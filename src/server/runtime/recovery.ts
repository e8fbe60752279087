// SPEC §6: find creation operations whose lease expired, take a fenced recovery lease (generation + 1), reconcile
// their steps (`running` past its lease → `unknown` → verify decides), then drive the remaining steps and
// Complete, or Abort with compensation. Several processes may run this at once: they coordinate through the
// database (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: one immediate transaction at a time).
import type { Actor } from '../auth/actor';
import { json, num, str, strOrNull } from '../db/values';
import { abortOperation } from '../domain/creation/abort';
import { complete } from '../domain/creation/complete';
import { runPlannedSteps } from '../domain/creation/coordinator';
import { LeaseLostError, UnknownStepError, withLease } from '../domain/creation/fence';
import type { CreationHandle } from '../domain/creation/operation';
import type { CreationPlan } from '../domain/creation/plan';
import { STEP_KINDS } from '../domain/creation/steps';
import { loadSteps, stepContext, updateStep } from '../domain/creation/steps/records';
import type { Services } from '../services';
import { dispatchAfterComplete } from './dispatcher';

/** Re-runs of a step whose effect was not found after a crash, before it counts as failed (bounded recovery). */
const MAX_ATTEMPTS = 3;

function recoveryActor(actorId: string): Actor {
  return { kind: 'system', id: actorId, label: 'recovery', global: true, roles: new Map(), grants: new Set(), scopes: new Set() };
}

/** Claims up to `limit` expired operations for this process. Each claim bumps the generation: the old owner is fenced out. */
export async function claimExpired(services: Services, limit = 10): Promise<CreationHandle[]> {
  const { db } = services;
  const now = new Date();
  const until = new Date(now.getTime() + services.leaseMs).toISOString();
  return db.transaction(async (tx) => {
    const skipLocked = tx.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
    const rows = await tx.query<Record<string, unknown>>(
      `SELECT id, generation FROM creation_operations
       WHERE state IN ('preparing', 'completing', 'aborting') AND lease_expires_at < $1
       ORDER BY lease_expires_at LIMIT ${Math.max(1, Math.floor(limit))}${skipLocked}`,
      [now.toISOString()],
    );
    const handles: CreationHandle[] = [];
    for (const r of rows) {
      // Compare-and-set on the generation we saw: of two claimers, exactly one moves it.
      const op = await tx.one<Record<string, unknown>>(
        `UPDATE creation_operations SET generation = generation + 1, lease_owner = $3, lease_expires_at = $4, updated_at = $5
         WHERE id = $1 AND generation = $2 AND lease_expires_at < $5
         RETURNING id, task_id, workspace_id, actor_id, external_id, plan, generation`,
        [str(r.id), num(r.generation), services.instanceId, until, now.toISOString()],
      );
      if (!op) continue;
      handles.push({
        operationId: str(op.id),
        taskId: str(op.task_id),
        workspaceId: str(op.workspace_id),
        actor: recoveryActor(str(op.actor_id)),
        plan: json<CreationPlan>(op.plan),
        externalId: strOrNull(op.external_id),
        token: '',
        generation: num(op.generation),
        recovered: true,
      });
    }
    return handles;
  });
}

/**
 * Reconciles steps left `running` by a dead owner. Returns false when a step's own lease has not run out yet
 * (its owner may still be mid-effect): the operation is left for a later pass.
 */
async function reconcileSteps(services: Services, handle: CreationHandle): Promise<boolean> {
  const now = new Date().toISOString();
  for (const step of await loadSteps(services.db, handle.operationId)) {
    if (step.state === 'running') {
      if (step.leaseExpiresAt && step.leaseExpiresAt > now) return false;
      await updateStep(services, handle, step.index, "state = 'unknown'", [], "state = 'running'");
      step.state = 'unknown';
    }
    if (step.state !== 'unknown') continue;
    const evidence = await STEP_KINDS[step.kind].verify(stepContext(services, handle, step), step.evidence);
    if (evidence) {
      await updateStep(services, handle, step.index, "state = 'succeeded', evidence = $3, finished_at = $4, lease_expires_at = NULL", [
        JSON.stringify(evidence),
        new Date().toISOString(),
      ]);
    } else if (step.attempts < MAX_ATTEMPTS) {
      // Not made (or not all of it): steps are idempotent, so the step simply runs again, keeping its notes.
      await updateStep(services, handle, step.index, "state = 'planned', lease_expires_at = NULL", []);
    } else {
      await updateStep(services, handle, step.index, "state = 'failed', error = $3, finished_at = $4, lease_expires_at = NULL", [
        JSON.stringify({ code: 'creation_step_failed', detail: `${step.kind}: effect not found after ${step.attempts} attempts` }),
        new Date().toISOString(),
      ]);
    }
  }
  return true;
}

/** Drives one claimed operation to `completed` or `aborted` (or leaves it for a later pass). */
export async function driveRecovered(services: Services, handle: CreationHandle): Promise<void> {
  const op = await services.db.one<{ state: unknown; error: unknown }>('SELECT state, error FROM creation_operations WHERE id = $1', [
    handle.operationId,
  ]);
  const state = str(op?.state);
  await withLease(services.db, handle, services.leaseMs, async () => {
    if (state === 'aborting') {
      // A step a dead owner left running must be verified first: unknown blocks Abort (SPEC §4.4).
      if (!(await reconcileSteps(services, handle))) return;
      return abortOperation(services, handle, strOrNull(op?.error) ?? 'aborted by recovery');
    }
    if (state === 'preparing') {
      if (!(await reconcileSteps(services, handle))) return;
      try {
        await runPlannedSteps(services, handle);
      } catch (err) {
        // A step failure has already aborted the operation (nobody is waiting for its error here).
        if (err instanceof LeaseLostError || err instanceof UnknownStepError) throw err;
        const after = await services.db.one<{ state: unknown }>('SELECT state FROM creation_operations WHERE id = $1', [handle.operationId]);
        if (str(after?.state) === 'aborted') return;
        throw err;
      }
    }
    const result = await complete(services, handle).catch(async (err: unknown) => {
      const after = await services.db.one<{ state: unknown }>('SELECT state FROM creation_operations WHERE id = $1', [handle.operationId]);
      if (str(after?.state) === 'aborted') return { kind: 'gone' as const };
      throw err;
    });
    // SPEC §4.3: CreatedIdentityLost still dispatches; a task deleted meanwhile does not.
    if (result.kind !== 'gone') dispatchAfterComplete(services, handle.plan);
  });
}

/** One pass: claim what expired and drive each. Returns how many operations were claimed. */
export async function recoverOnce(services: Services, limit = 10): Promise<number> {
  const handles = await claimExpired(services, limit);
  for (const handle of handles) {
    try {
      await driveRecovered(services, handle);
    } catch (err) {
      // Lost to a newer generation, or not finished yet: the lease runs out and a later pass continues.
      if (!(err instanceof LeaseLostError)) console.error(`creation recovery of ${handle.operationId} deferred:`, (err as Error).message);
    }
  }
  return handles.length;
}
