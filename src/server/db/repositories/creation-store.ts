// The creation store: the transactions of the create protocol (SPEC §4.1 step 7, §4.3, §4.2 fence and lease, §6
// claims), each composed of the one-statement methods of the repositories it touches. This is the form every
// dialect has; PostgreSQL's store (dialect/postgres/creation.ts) extends it and sends Begin and both Complete phases
// as one statement each when their guards hold, falling back to these methods for everything unusual. The Store
// picks one when it is built; the domain only ever calls `store.creation.begin(…)`, `.enterCompleting(…)`, `.settle(…)`.
//
// A zero-step plan's Begin and Complete are one transaction (SPEC §4.3, last bullet): `createSettled`, writing exactly
// the rows, revisions and event `begin` + `enterCompleting` + `settle` leave behind (tests compare them).
import { randomUUID } from 'node:crypto';
import { LeaseLostError, TASK_GONE } from '../../model/creation';
import type { CreationPlan } from '../../domain/creation/plan';
import { eventPayload } from '../../model/events';
import { toTaskBody, type Task } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { TxRepositories } from './index';
import type { Sql } from '../types';
import {
  CreationRepository,
  type ClaimedOperation,
  type Fence,
  type SettledDraw,
  type StepChange,
  type StepState,
  type StoredOutcome,
} from './creation';
import type { DeferredIntent } from './launches';

export type Transactor = <T>(fn: (tx: TxRepositories) => Promise<T>) => Promise<T>;

/** Everything Begin writes (SPEC §4.1 step 7). */
export interface BeginRecord {
  operationId: string;
  taskId: string;
  /** The handle's token, hashed (SPEC §4.2: stored hashed, never the token). */
  tokenHash: string;
  actorId: string;
  leaseOwner: string;
  leaseExpiresAt: string;
  at: string;
  workspaceId: string;
  stepId: string;
  /** The step had a WIP limit when validated: admission counts the step's tasks under the workspace lock. */
  wipLimited: boolean;
  title: string;
  description: string | null;
  parentId: string | null;
  externalId: string | null;
  plan: CreationPlan;
  /** The X-Request-Id of the request that began it (SPEC §13); null in process. */
  requestId: string | null;
}

export type BeginResult =
  { kind: 'begun'; task: Task } | { kind: 'workspace_missing' } | { kind: 'step_missing' } | { kind: 'wip_full' };

/** Phase A's subject: the operation (fenced) and its task. */
export interface CompletingRecord extends Fence {
  taskId: string;
  /** The creating request's first attempt with its own handle: it knows the operation is still `preparing`. */
  fresh: boolean;
}

/** Everything phase B writes (SPEC §4.3). */
export interface SettleRecord extends CompletingRecord {
  workspaceId: string;
  externalId: string | null;
  actorId: string;
  eventId: string;
  /** The task exactly as Begin wrote it, when the creating request still holds it (see the PostgreSQL form). */
  begun?: Task;
  /** SPEC §5 deferred start: the start-when-unblocked intent, written with the completion. */
  deferred?: Omit<DeferredIntent, 'at'>;
}

export type SettleResult = { kind: 'created' | 'created_identity_lost'; task: Task } | { kind: 'gone' };

/** Everything a zero-step create writes in one transaction (SPEC §4.3): Begin's rows as Complete leaves them. */
export interface SettledRecord extends Omit<BeginRecord, 'stepId' | 'wipLimited' | 'leaseOwner' | 'leaseExpiresAt'> {
  /** The target step; null when the request named none: the workspace's first step. */
  stepId: string | null;
  /** The one `task.created` event's id. */
  eventId: string;
  /** SPEC §5 deferred start: the start-when-unblocked intent, written with the completion. */
  deferred?: Omit<DeferredIntent, 'at'>;
  /**
   * The request was not validated before (SPEC §4.1 step 6 happens here, for a request that needs no read to plan):
   * the workspace must have no working-folder root and a named parent must be one of its tasks; anything else
   * answers `unplanned`, having written nothing, for the caller to validate and plan the general way.
   */
  validate: boolean;
  /**
   * Runs once every write is sent and before COMMIT (the failpoint crash tests stop a process at). A store that sends
   * the whole transaction as one statement runs it before sending that statement: no earlier moment is observable.
   */
  beforeCommit?: () => Promise<void>;
}

export type SettledResult =
  | { kind: 'created'; task: Task }
  | { kind: 'workspace_missing' }
  | { kind: 'step_missing' }
  | { kind: 'wip_full' }
  /** `validate` only: the target needs the general path (a folder to plan, or a validation error to report). */
  | { kind: 'unplanned' };

/** What revision 0 recorded of a task a zero-step create inserted settled: the row as Begin writes it. */
export function asBegun(task: Task): Task {
  return { ...task, revision: 0, creationState: 'preparing', externalIdSettledAt: null };
}

/** Rolls a transaction back on purpose and carries the answer out of it. */
class Rollback<T> extends Error {
  constructor(readonly result: T) {
    super('rollback');
  }
}

async function orRolledBack<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Rollback) return err.result as T;
    throw err;
  }
}

/** The task Begin inserts: `preparing`, revision 0, numbered by the workspace sequence. */
export function begunTask(
  b: Pick<
    BeginRecord,
    'taskId' | 'workspaceId' | 'title' | 'description' | 'stepId' | 'parentId' | 'externalId' | 'at'
  >,
  number: number,
  identifier: string,
): Task {
  return {
    id: b.taskId,
    workspaceId: b.workspaceId,
    number,
    identifier,
    title: b.title,
    description: b.description,
    stepId: b.stepId,
    parentId: b.parentId,
    archivedAt: null,
    createdAt: b.at,
    updatedAt: b.at,
    revision: 0,
    creationState: 'preparing',
    externalId: b.externalId,
    externalIdSettledAt: null,
  };
}

/**
 * Why a zero-step create's target refuses it, if it does (inside the transaction that drew its number, which then
 * rolls back). A request validated here (`validate`) that needs the general path — a folder root to plan, an unknown
 * step or parent, a workspace gone — is `unplanned`, so validation reports it in its own words.
 */
async function refusalOf(
  tx: TxRepositories,
  s: SettledRecord,
  drawn: SettledDraw | undefined,
): Promise<SettledResult | undefined> {
  if (!drawn) return { kind: s.validate ? 'unplanned' : 'workspace_missing' };
  if (s.validate && (drawn.rootPath !== null || !drawn.parentHeld)) return { kind: 'unplanned' };
  if (!drawn.stepId) return { kind: s.validate ? 'unplanned' : 'step_missing' };
  if (drawn.wipLimit === null) return undefined;
  // SPEC §4.1 step 7: WIP admission counts under the workspace lock, in a statement later than the one that took it.
  const step = await tx.creation.wipOccupancy(drawn.stepId);
  if (!step) return { kind: s.validate ? 'unplanned' : 'step_missing' };
  return step.wipLimit !== null && step.active >= step.wipLimit ? { kind: 'wip_full' } : undefined;
}

/** The task a zero-step create inserts: already settled and `completed` at revision 1, as phase B leaves it. */
export function settledTask(s: SettledRecord, number: number, identifier: string, stepId: string): Task {
  return {
    ...begunTask({ ...s, stepId }, number, identifier),
    revision: 1,
    creationState: 'completed',
    externalIdSettledAt: s.externalId === null ? null : s.at,
  };
}

export class CreationStore extends CreationRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly transaction: Transactor,
  ) {
    super(sql, dialect);
  }

  /**
   * SPEC §4.1 step 7, one transaction: the operation and its planned steps first (they need no number, so the
   * workspace lock is held for as few statements as possible), then the number, WIP admission, the task in
   * `preparing` and revision 0. A unique violation on uniq_tasks_external_id rolls the whole transaction back —
   * the number included, so identifiers stay gapless — and is thrown for the caller to re-read.
   */
  begin(b: BeginRecord): Promise<BeginResult> {
    return orRolledBack(() =>
      this.transaction(async (tx) => {
        await tx.creation.insertOperation({ ...b, id: b.operationId });
        await tx.creation.insertPlannedSteps(b.operationId, b.plan.steps);
        const drawn = await tx.creation.drawTaskNumber(b.workspaceId);
        if (!drawn) throw new Rollback<BeginResult>({ kind: 'workspace_missing' });
        const step = await tx.creation.wipOccupancy(b.stepId);
        if (!step) throw new Rollback<BeginResult>({ kind: 'step_missing' });
        if (step.wipLimit !== null && step.active >= step.wipLimit)
          throw new Rollback<BeginResult>({ kind: 'wip_full' });
        const task = begunTask(b, drawn.number, `${drawn.prefix}-${drawn.number}`);
        await tx.tasks.insert(task);
        await tx.events.insertRevision(task, 'begin', b.actorId, toTaskBody(task), b.at);
        return { kind: 'begun', task };
      }),
    );
  }

  /**
   * SPEC §4.3, zero-step plans — Begin and Complete as ONE transaction: the number (under the workspace row lock, so
   * identifiers stay gapless and WIP admission is exact), the task inserted already settled and `completed` with its
   * target checked in the same statement, revisions 0 and 1, the operation `completed`, and the one `task.created`
   * event copied from the committed row — the outbox row last (the invariant EventRepository.insertEvent states). A
   * unique violation on uniq_tasks_external_id rolls all of it back, the number included, and is thrown for the
   * caller to re-read (SPEC §4.1 steps 7–8). Nothing is ever visible unsettled; a crash before COMMIT leaves nothing.
   */
  createSettled(s: SettledRecord): Promise<SettledResult> {
    return orRolledBack(() =>
      this.transaction(async (tx): Promise<SettledResult> => {
        const drawn = await tx.creation.drawSettledNumber(s.workspaceId, s.stepId, s.parentId);
        const refused = await refusalOf(tx, s, drawn);
        if (refused || !drawn?.stepId) throw new Rollback<SettledResult>(refused ?? { kind: 'unplanned' });
        const task = settledTask(s, drawn.number, `${drawn.prefix}-${drawn.number}`, drawn.stepId);
        const begun = asBegun(task);
        await tx.tasks.insert(task);
        await tx.events.insertRevisions([
          { task: begun, change: 'begin', actorId: s.actorId, snapshot: toTaskBody(begun), at: s.at },
          { task, change: 'create', actorId: s.actorId, snapshot: toTaskBody(task), at: s.at },
        ]);
        await tx.creation.insertCompletedOperation(
          { ...s, id: s.operationId },
          { kind: 'created', event_id: s.eventId },
        );
        await tx.events.insertEvent(eventPayload({ id: s.eventId, type: 'task.created', task, at: s.at }));
        if (s.deferred) await tx.launches.insertDeferredIntent({ ...s.deferred, at: s.at });
        await s.beforeCommit?.();
        return { kind: 'created', task };
      }),
    );
  }

  /**
   * SPEC §4.3 phase A, one transaction: task then operation (the lock order of release and delete) move
   * `preparing → completing`, the operation fenced by its generation. `gone` when the task was deleted meanwhile
   * (the operation is marked aborting, for Abort to compensate). Throws LeaseLostError for a stale owner.
   */
  enterCompleting(c: CompletingRecord): Promise<'completing' | 'gone'> {
    return this.transaction(async (tx) => {
      if (!(await tx.creation.markTaskCompleting(c.taskId))) {
        await tx.creation.assertOwner(c);
        const task = await tx.tasks.findById(c.taskId);
        if (!task) {
          await tx.creation.markAborting(c.operationId, TASK_GONE);
          return 'gone';
        }
        if (task.creationState !== 'completing')
          throw new Error(`cannot complete a task in state ${task.creationState}`);
      }
      if (!(await tx.creation.markOperationCompleting(c, new Date().toISOString()))) {
        await tx.creation.assertOwner(c);
        throw new Error('creation operation is no longer preparing');
      }
      return 'completing';
    });
  }

  /**
   * SPEC §4.3 phase B, one transaction: settle the identity only if the task still holds it (else
   * CreatedIdentityLost), mark the task completed, write revision 1 and exactly one `task.created` event copied from
   * the committed row (and a deferred start's intent), and finish the operation — its last write, fenced, so a
   * stale owner's whole transaction rolls back (LeaseLostError). `gone` when the task was deleted meanwhile.
   */
  settle(s: SettleRecord): Promise<SettleResult> {
    return this.transaction(async (tx): Promise<SettleResult> => {
      const at = new Date().toISOString();
      let kind: 'created' | 'created_identity_lost' = 'created';
      let task: Task | undefined;
      if (s.externalId !== null) {
        task = await tx.creation.settleTask(s.taskId, s.externalId, at);
        if (!task) kind = 'created_identity_lost';
      }
      task ??= await tx.creation.completeTask(s.taskId, at);
      if (!task) {
        await tx.creation.assertOwner(s);
        await tx.creation.markAborting(s.operationId, TASK_GONE);
        return { kind: 'gone' };
      }
      await tx.events.insertRevision(task, 'create', s.actorId, toTaskBody(task), at);
      await tx.events.insertEvent(eventPayload({ id: s.eventId, type: 'task.created', task, at }));
      if (s.deferred) await tx.launches.insertDeferredIntent({ ...s.deferred, at });
      const outcome: StoredOutcome = { kind, event_id: s.eventId };
      if (!(await tx.creation.finishCompleted(s, outcome, at))) throw new LeaseLostError(s.operationId);
      return { kind, task };
    });
  }

  /** One transaction that first proves `fence` still owns its operation (SPEC §4.2); LeaseLostError otherwise. */
  fenced<T>(fence: Fence, fn: (tx: TxRepositories) => Promise<T>): Promise<T> {
    return this.transaction(async (tx) => {
      await tx.creation.assertOwner(fence);
      return fn(tx);
    });
  }

  /** A fenced change of one step; the number of rows changed (0: it was not in state `expected`). */
  recordStep(fence: Fence, index: number, change: StepChange, expected?: StepState): Promise<number> {
    return this.fenced(fence, (tx) => tx.creation.changeStep(fence.operationId, index, change, expected));
  }

  /** Extends the operation's lease and those of its running steps; false once a newer generation owns it. */
  renewLease(fence: Fence, until: string): Promise<boolean> {
    return this.transaction(async (tx) => {
      if (!(await tx.creation.extendLease(fence, until))) return false;
      await tx.creation.extendRunningStepLeases(fence.operationId, until);
      return true;
    });
  }

  /** SPEC §6: claims up to `limit` operations whose lease expired for `owner`, each at a new generation. */
  claimExpired(owner: string, leaseMs: number, limit: number): Promise<ClaimedOperation[]> {
    const now = new Date();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    return this.transaction(async (tx) => {
      const claimed: ClaimedOperation[] = [];
      for (const seen of await tx.creation.listExpired(now.toISOString(), limit)) {
        const op = await tx.creation.takeOver(seen, owner, until, now.toISOString());
        if (!op) continue;
        // SPEC §13: a takeover has no HTTP request, so it gets an id of its own, recorded here and logged by the
        // runtime; whatever this recovery pass then records carries it, as a request's records carry the request's.
        const requestId = `recovery-${randomUUID()}`;
        claimed.push({ ...op, requestId });
        // SPEC §13: the operation's history names whose lease expired and who took over (rare: no cost to creates).
        await tx.creation.recordHistory({
          operationId: op.operationId,
          at: now.toISOString(),
          generation: op.generation,
          leaseOwner: owner,
          requestId,
          event: {
            kind: 'takeover',
            previousOwner: seen.leaseOwner,
            leaseExpiredAt: seen.leaseExpiresAt,
            leaseUntil: until,
          },
        });
      }
      return claimed;
    });
  }
}
