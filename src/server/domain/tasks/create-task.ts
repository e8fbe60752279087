// THE place where "create with an external id" is decided (STYLE: every surface calls this).
// It follows SPEC §4.1 step by step; each step is cited where it happens.
import { can, visibleWorkspaces, type Actor } from '../access';
import type { Surface } from '../../observability/request-scope';
import type { Services } from '../../services';
import { begin } from '../creation/begin';
import { createPlain, createSettled } from '../creation/create-settled';
import { complete, type CompleteResult } from '../creation/complete';
import { recordFailedAttempt } from '../creation/attempts';
import { awaitRecoveredOutcome } from '../creation/await-recovered';
import { withLease } from '../creation/fence';
import { runPlannedSteps } from '../creation/coordinator';
import type { CreateOutcome } from '../creation/operation';
import { buildPlan } from '../creation/build-plan';
import { isDatabaseUnavailable, isExternalIdViolation, LeaseLostError } from '../../db/errors';
import { DomainError } from '../errors/domain-error';
import { normalizeExternalId } from '../identity/normalize';
import { parseEnvelope, parseFields } from './create-input';
import { validateCreate } from './validate-create';

/** How often a create that lost the identity race to a create that then vanished runs again (SPEC §4.1 step 8). */
export const LOST_RACE_RETRIES = 3;

export interface CreateTaskOptions {
  /** SPEC §4.1 step 2: only MCP falls back to the caller's single accessible workspace. */
  singleWorkspaceFallback?: boolean;
  /** Test seam: force the new task's id (primary-key collision guard). */
  taskId?: string;
  /** Internal: lost identity races already retried by this request (retryLostRace). */
  lostRaces?: number;
  /** The surface the create came in on, for the creates counter; `none` in process (tests, bench). */
  surface?: Surface;
  /** SPEC §13: the X-Request-Id of the request, stored with the operation a Created begins (and its failed attempt). */
  requestId?: string;
}

export async function createTask(
  services: Services,
  actor: Actor,
  body: unknown,
  options: CreateTaskOptions = {},
): Promise<CreateOutcome> {
  const outcome = await decideCreate(services, actor, body, options);
  // Counted in memory only: a Found stays write-free (the surface is the request's).
  services.metrics.recordCreate(options.surface ?? 'none', outcome.kind);
  return outcome;
}

async function decideCreate(
  services: Services,
  actor: Actor,
  body: unknown,
  options: CreateTaskOptions,
): Promise<CreateOutcome> {
  const { store, readiness } = services;

  // Step 1: the transport envelope.
  const envelope = parseEnvelope(body);

  // Step 2: the effective workspace.
  const workspaceId = await resolveWorkspace(services, actor, envelope.workspaceId, envelope.parentId, options);

  // Step 3: authorize before anything about the identity is revealed or validated.
  if (!can(actor, workspaceId, 'write')) throw new DomainError('task_not_created');

  // Step 4: normalize (SPEC §2.1); identity reads and writes wait for attestation (SPEC §12).
  const externalId = normalizeExternalId(envelope.rawExternalId);
  if (externalId !== undefined) {
    readiness.requireIdentity();
    // Step 5: lookup before any write, sequence allocation, WIP admission or payload validation.
    const held = await store.tasks.findByExternalId(workspaceId, externalId);
    if (held) return found(held);
  }

  let created;
  try {
    // Step 6: only on a miss, validate the rest and build the plan.
    const fields = parseFields(envelope.body);
    await services.failpoints.hit('before_begin', externalId ?? fields.title);
    // SPEC §4.3: a zero-step plan is Begin and Complete in one transaction. A request that needs no read to plan
    // tries that first, validated inside the transaction; undefined sends it through validation and planning here.
    const request = {
      workspaceId,
      parentId: envelope.parentId ?? null,
      externalId: externalId ?? null,
      taskId: options.taskId,
      requestId: options.requestId ?? null,
    };
    const plain = await createPlain(services, actor, { ...request, fields });
    if (plain) return { kind: 'created', task: plain };
    const target = await validateCreate(store, workspaceId, envelope.parentId ?? null, fields);
    const plan = await buildPlan(services, workspaceId, fields, target.rootPath);
    const input = {
      ...request,
      stepId: target.stepId,
      wipLimited: target.wipLimited,
      title: fields.title,
      description: fields.description ?? null,
      plan,
    };
    if (plan.steps.length === 0) return { kind: 'created', task: await createSettled(services, actor, input) };
    // Step 7: Begin.
    created = await begin(services, actor, input);
  } catch (err) {
    // SPEC §4.4: a database failure is not a failure before the insert commits — the commit may have landed (an
    // ambiguous COMMIT), so the outcome is unknown: the caller gets the 503, and its retry converges on the task.
    if (isDatabaseUnavailable(err)) throw err;
    // Step 8: after a miss, any failure before the insert commits — the identity index included — re-reads
    // the identity first; only a second miss lets the original error surface.
    if (externalId !== undefined) {
      await services.failpoints.hit('before_reread', externalId);
      const held = await store.tasks.findByExternalId(workspaceId, externalId);
      if (held) return found(held);
      // Lost the race on the identity index, yet nothing holds it now: the winner aborted (or was released or
      // deleted) in between. Nothing was written, so run again from the lookup — a bounded number of times.
      if (isExternalIdViolation(err)) return retryLostRace(services, actor, body, options);
    }
    throw err;
  }

  // Steps 9–10 hold the operation's lease, renewed while this request works (SPEC §4.2), so recovery only
  // takes over a create whose process really stopped.
  const { handle } = created;
  let result: CompleteResult;
  try {
    result = await withLease(services, handle, async () => {
      await services.failpoints.hit('after_begin', handle.externalId ?? created.task.title);
      // Step 9: run the planned steps; step 10: Complete.
      await runPlannedSteps(services, handle);
      return complete(services, handle);
    });
  } catch (err) {
    // Lost the lease (this process stalled past it): recovery owns the operation now. Report what it decides.
    if (err instanceof LeaseLostError) return awaitRecoveredOutcome(services, handle);
    // SPEC §13: an error that leaves the operation to recovery stays visible on it, with this request's id.
    await recordFailedAttempt(services, handle, err);
    throw err;
  }
  if (result.kind === 'gone') throw new DomainError('task_not_created');
  // Only now may asynchronous work start (CreatedIdentityLost included): the agent launch (SPEC §4.1 step 10).
  services.dispatcher.afterComplete(handle.plan);
  return { kind: result.kind, task: result.task };
}

async function retryLostRace(
  services: Services,
  actor: Actor,
  body: unknown,
  options: CreateTaskOptions,
): Promise<CreateOutcome> {
  const lost = (options.lostRaces ?? 0) + 1;
  if (lost > LOST_RACE_RETRIES) throw new DomainError('identity_contended');
  return decideCreate(services, actor, body, { ...options, lostRaces: lost });
}

function found(task: import('../../model/task').Task): CreateOutcome {
  return { kind: task.creationState === 'completed' ? 'found_settled' : 'found_unsettled', task };
}

/**
 * SPEC §4.1 step 2: explicit `workspace_id`; else the parent's workspace from retained history (works even
 * when the parent was deleted; never loads the live parent); else (MCP only) the single accessible workspace.
 */
async function resolveWorkspace(
  services: Services,
  actor: Actor,
  explicit: string | undefined,
  parentId: string | undefined,
  options: CreateTaskOptions,
): Promise<string> {
  if (explicit) return explicit;
  if (parentId) {
    // A parent with no retained history resolves to no workspace: the same 404 a workspace the caller cannot access
    // gets at step 3 (SPEC §11), so a parent id cannot be probed across workspaces. No fallback either.
    const workspaceId = await services.store.events.workspaceOfTask(parentId);
    if (!workspaceId) throw new DomainError('task_not_created');
    return workspaceId;
  }
  if (options.singleWorkspaceFallback) {
    const visible = visibleWorkspaces(actor);
    const ids = visible === 'all' ? await services.store.workspaces.listIds(2) : visible;
    if (ids.length === 1) return ids[0]!;
  }
  throw new DomainError('workspace_required');
}
