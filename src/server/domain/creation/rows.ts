// What each write of the create protocol stores, computed here so that the data layer only stores it (SPEC §4.1
// step 7, §4.3, §9): the task row, its revisions (each one's change label and snapshot) and the one `task.created`
// event (revision 1's: its id and type; its payload is the revision's snapshot in its envelope). The creation store (db/repositories/creation-store.ts) writes these rows as they are, on every
// dialect; it decides nothing about them.
//
// Two values of a new task exist only inside the statement that writes it: the number (drawn under the workspace row
// lock, so identifiers stay gapless) and, for a create that named no step, the workspace's first step. A snapshot
// that contains them is handed over as a JSON template — its stored text (db/repositories/snapshots.ts) cut around
// those values — which the store fills with the values it drew (`fillJson`, or `to_json` inside PostgreSQL's
// statements).
import type { CompletedOperation, StoredOutcome } from '../../db/repositories/creation';
import type { BeginRows, SettledRows, SettledWrite, SettleRows } from '../../db/repositories/creation-store';
import { BEGIN_CHANGE, CREATE_CHANGE } from '../../db/repositories/events';
import type { DeferredIntent } from '../../db/repositories/launches';
import { snapshotTemplate, type SnapshotKey } from '../../db/repositories/snapshots';
import { toTaskBody, type Task } from '../../model/task';
import type { CreationHandle } from './operation';
import type { CreationPlan } from './plan';

/** The fields of a new task that the request decides. */
export interface NewTask {
  taskId: string;
  workspaceId: string;
  title: string;
  description: string | null;
  parentId: string | null;
  externalId: string | null;
  at: string;
}

/** The task Begin inserts: `preparing`, revision 0; number and identifier are the store's to draw. */
function begunDraft(t: NewTask, stepId: string): Task {
  return {
    id: t.taskId,
    workspaceId: t.workspaceId,
    number: 0,
    identifier: '',
    title: t.title,
    description: t.description,
    stepId,
    parentId: t.parentId,
    archivedAt: null,
    createdAt: t.at,
    updatedAt: t.at,
    revision: 0,
    creationState: 'preparing',
    externalId: t.externalId,
    externalIdSettledAt: null,
  };
}

/** The revision row a new task's snapshot goes in: its own, at its creation's clock reading. */
function rowKey(task: Task): SnapshotKey {
  return { taskId: task.id, workspaceId: task.workspaceId, revision: task.revision, at: task.createdAt };
}

/** The task with the values the store drew. */
export function drawn(draft: Task, d: { number: number; identifier: string; stepId?: string }): Task {
  return { ...draft, number: d.number, identifier: d.identifier, stepId: d.stepId ?? draft.stepId };
}

/** The operation's row as both Begin forms write it, but for its plan, token and lease (Begin's own). */
function operationRow(
  t: NewTask & {
    operationId: string;
    actorId: string;
    requestId: string | null;
  },
): Omit<CompletedOperation, 'plan'> {
  return {
    id: t.operationId,
    workspaceId: t.workspaceId,
    taskId: t.taskId,
    actorId: t.actorId,
    externalId: t.externalId,
    at: t.at,
    requestId: t.requestId,
  };
}

/** The plan that says nothing: no step, no start, no blocker, no agent profile. */
function isEmptyPlan(plan: CreationPlan): boolean {
  return plan.steps.length === 0 && plan.startPolicy === 'none' && plan.blockedBy.length === 0 && !plan.agentProfileId;
}

/** SPEC §4.1 step 7: Begin's rows — the operation (with its plan's steps), the task `preparing`, revision 0. */
export function beginRows(
  t: NewTask & {
    stepId: string;
    wipLimited: boolean;
    operationId: string;
    actorId: string;
    plan: CreationPlan;
    tokenHash: string;
    leaseOwner: string;
    leaseExpiresAt: string;
    requestId: string | null;
  },
): BeginRows {
  const task = begunDraft(t, t.stepId);
  return {
    operation: {
      ...operationRow(t),
      plan: t.plan,
      tokenHash: t.tokenHash,
      leaseOwner: t.leaseOwner,
      leaseExpiresAt: t.leaseExpiresAt,
    },
    task,
    wipLimited: t.wipLimited,
    revision: { change: BEGIN_CHANGE, snapshot: snapshotTemplate(toTaskBody(task), rowKey(task), ['identifier']) },
  };
}

/**
 * SPEC §4.3, zero-step: Begin's rows as Complete leaves them, for one transaction — the task settled and `completed`
 * at revision 1, revision 1 with the one `task.created` event, the operation `completed` as a compact record (no
 * token; no plan when it is the empty one; no outcome or event id, which its revision 1 holds: SPEC §9). Revision 0 is not stored: it would be revision 1's snapshot
 * with `revision: 0` (`begun` differs from `task` only in what a snapshot does not show), which every reader rebuilds
 * (impliedBegin in db/repositories/events.ts).
 * The identifier and (when the request named none) the step are the store's to fill in.
 */
export function settledRows(
  t: NewTask & {
    stepId: string | null;
    operationId: string;
    actorId: string;
    plan: CreationPlan;
    requestId: string | null;
    eventId: string;
    deferred?: DeferredIntent;
    validate: boolean;
    beforeCommit?: () => Promise<void>;
  },
): SettledRows {
  const begun = begunDraft(t, '');
  const task: Task = {
    ...begun,
    revision: 1,
    creationState: 'completed',
    externalIdSettledAt: t.externalId === null ? null : t.at,
  };
  return {
    // SPEC §9: a compact record — no token (no handle is made from it), no plan when it is the empty one.
    operation: { ...operationRow(t), plan: isEmptyPlan(t.plan) ? null : t.plan },
    stepId: t.stepId,
    task,
    revision: {
      change: CREATE_CHANGE,
      snapshot: snapshotTemplate(toTaskBody(task), rowKey(task), ['identifier', 'step_id']),
    },
    event: { id: t.eventId, type: 'task.created' },
    deferred: t.deferred,
    validate: t.validate,
    beforeCommit: t.beforeCommit,
  };
}

function settledWrite(task: Task, eventId: string, kind: StoredOutcome['kind']): SettledWrite {
  return {
    task,
    revision: { change: CREATE_CHANGE, snapshot: toTaskBody(task) },
    event: { id: eventId, type: 'task.created' },
    outcome: { kind, event_id: eventId },
  };
}

/**
 * SPEC §4.3 phase B's rows for `handle`, from `base`, the task as Begin wrote it (after phase A nothing changes it
 * but a release, which only clears its identity, or a delete). Two forms: the task still holds its identity (or never
 * had one) and is settled; or it was released while preparing — CreatedIdentityLost. The store writes the one
 * whose guard holds.
 */
export function settleRows(
  handle: CreationHandle,
  base: Task,
  eventId: string,
  fresh: boolean,
  at: string,
  deferred?: Omit<DeferredIntent, 'at'>,
): SettleRows {
  const { externalId } = handle;
  const done: Task = { ...base, creationState: 'completed', revision: 1, updatedAt: at };
  const held = settledWrite(
    { ...done, externalId, externalIdSettledAt: externalId === null ? null : at },
    eventId,
    'created',
  );
  const lost =
    externalId === null
      ? undefined
      : settledWrite({ ...done, externalId: null, externalIdSettledAt: null }, eventId, 'created_identity_lost');
  return {
    operationId: handle.operationId,
    generation: handle.generation,
    taskId: handle.taskId,
    externalId,
    actorId: handle.actor.id,
    at,
    fresh,
    held,
    lost,
    deferred: deferred && { ...deferred, at },
  };
}
