// SPEC §4.1 step 7 — Begin: one transaction that admits, numbers and inserts the task in `preparing`,
// records the operation and its planned steps, and writes revision 0. It emits no event.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Actor } from '../access';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { Task } from '../../model/task';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';
import { beginRows, drawn } from './rows';

export interface BeginInput {
  workspaceId: string;
  stepId: string;
  /** The step had a WIP limit when validated: admission must count under the workspace lock. */
  wipLimited?: boolean;
  title: string;
  description: string | null;
  parentId: string | null;
  externalId: string | null;
  plan: CreationPlan;
  /** Test seam for the "a primary-key collision is never Found" guard. */
  taskId?: string;
  /** The X-Request-Id of the request that begins it (SPEC §13), stored with the operation; null in process. */
  requestId?: string | null;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The error of a Begin its target refused (the caller re-reads the identity before surfacing it, SPEC §4.1 step 8). */
export function refusal(kind: 'workspace_missing' | 'step_missing' | 'wip_full'): DomainError {
  if (kind === 'workspace_missing') return new DomainError('task_not_created');
  if (kind === 'step_missing') return new DomainError('validation_failed', 'step_id: workflow step not found');
  return new DomainError('wip_limit_exceeded');
}

export async function begin(
  services: Services,
  actor: Actor,
  input: BeginInput,
): Promise<{ handle: CreationHandle; task: Task }> {
  // SPEC §4.2: the handle's token is random and stored hashed; the creating request holds the lease from here.
  const token = randomBytes(32).toString('base64url');
  const now = new Date();
  // Random ids (UUIDv4): the console names an operation by its id's first 8 characters, which time-ordered ids share
  // for a minute at a time (docs/BENCHMARKS.md, "What a PostgreSQL Created logs").
  const operationId = randomUUID();
  const rows = beginRows({
    ...input,
    operationId,
    taskId: input.taskId ?? randomUUID(),
    wipLimited: input.wipLimited ?? true,
    tokenHash: hashToken(token),
    actorId: actor.id,
    requestId: input.requestId ?? null,
    leaseOwner: services.instanceId,
    leaseExpiresAt: new Date(now.getTime() + services.leaseMs).toISOString(),
    at: now.toISOString(),
  });
  const begun = await services.store.creation.begin(rows);
  // Any failure rolled the whole transaction back, the number included (gapless identifiers).
  if (begun.kind !== 'begun') throw refusal(begun.kind);

  const task = drawn(rows.task, begun);
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
    requestId: input.requestId ?? null,
  };
  // The `after_begin` failpoint is hit by createTask once the lease renewal is running.
  return { handle, task };
}
