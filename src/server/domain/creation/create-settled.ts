// SPEC §4.3, last bullet — a zero-step plan (nothing planned in §5: the common create) has no external effect to
// protect, so Begin and Complete are ONE transaction: the task is inserted already settled and `completed`, with its
// operation `completed`, revisions 0 and 1 and the one `task.created` event the two-phase path writes (how: the
// creation store's `createSettled`, compactly — no stored revision 0, a compact operation: SPEC §9;
// tests/integration/creation/one-commit.test.ts compares both paths' rows and what their readers see). Readers
// never see such a task unsettled, so release and recovery never meet it preparing; a crash leaves nothing; a unique
// violation rolls it all back and reaches the caller, which re-reads (SPEC §4.1 step 8).
import { randomUUID } from 'node:crypto';
import { eventIdOf } from '../../db/repositories/events';
import type { Actor } from '../access';
import type { Services } from '../../services';
import type { TCreateTaskFields } from '../tasks/create-input';
import type { Task } from '../../model/task';
import { refusal, type BeginInput } from './begin';
import { buildPlan } from './build-plan';
import { deferredIntent } from './complete';
import { drawn, settledRows } from './rows';

/** What Begin is given, with the step still to resolve when the request named none (null: the workspace's first). */
export type SettledInput = Omit<BeginInput, 'stepId' | 'wipLimited'> & { stepId: string | null };

/** A request after the lookup miss (SPEC §4.1 step 6), before anything about it was read. */
export interface CreateRequest {
  workspaceId: string;
  parentId: string | null;
  externalId: string | null;
  fields: TCreateTaskFields;
  taskId?: string;
  requestId?: string | null;
}

/** A zero-step create whose target was validated (SPEC §4.1 step 6): the task, or the error Begin would give. */
export async function createSettled(services: Services, actor: Actor, input: SettledInput): Promise<Task> {
  const result = await commit(services, actor, input, false);
  if (!result) throw new Error('a validated zero-step create cannot be unplanned');
  return result;
}

/**
 * The common create with its validation inside its one transaction: a request whose plan needs no read (no
 * attachment, repository, agent profile or blocker to check) plans nothing unless its workspace has a working-folder
 * root, and the transaction checks that together with the step and the parent. Undefined, having written nothing,
 * when the request needs the general path: a step to plan, or a validation error to report as validateCreate does.
 */
export async function createPlain(services: Services, actor: Actor, request: CreateRequest): Promise<Task | undefined> {
  const { fields, ...ids } = request;
  if (fields.attachments?.length || fields.repositories?.length || fields.agent_profile_id || fields.blocked_by?.length)
    return undefined;
  // With nothing to look up, this is the plan validation would build for a workspace without a root.
  const plan = await buildPlan(services, request.workspaceId, fields, null);
  if (plan.steps.length > 0) return undefined;
  const input = {
    ...ids,
    stepId: fields.step_id ?? null,
    title: fields.title,
    description: fields.description ?? null,
    plan,
  };
  return commit(services, actor, input, true);
}

async function commit(
  services: Services,
  actor: Actor,
  input: SettledInput,
  validate: boolean,
): Promise<Task | undefined> {
  const { failpoints } = services;
  const key = input.externalId ?? input.title;
  // Random ids, as Begin's (begin.ts).
  const operationId = randomUUID();
  const taskId = input.taskId ?? randomUUID();
  const at = new Date().toISOString();
  const deferred = deferredIntent(input.plan, { operationId, workspaceId: input.workspaceId, taskId });
  const rows = settledRows({
    ...input,
    operationId,
    taskId,
    actorId: actor.id,
    requestId: input.requestId ?? null,
    at,
    eventId: eventIdOf(taskId, 1),
    deferred: deferred && { ...deferred, at },
    validate,
    beforeCommit: () => failpoints.hit('before_settled_commit', key),
  });
  const result = await services.store.creation.createSettled(rows);
  if (result.kind === 'unplanned') return undefined;
  // Any refusal rolled the whole transaction back, the number included (gapless identifiers).
  if (result.kind !== 'created') throw refusal(result.kind);
  await failpoints.hit('after_complete', key);
  return drawn(rows.task, result);
}
