// The creation store: the writes of the create protocol (SPEC §4.1 step 7, §4.3, §4.2 fence and lease, §6 claims),
// each one transaction composed of the one-statement methods of the repositories it touches. The domain computes
// every row it writes — the task, its revisions (change label, snapshot and event), the stored outcome
// (domain/creation/rows.ts) — and interprets what it answers (a task gone, a lease lost, a target refused); the store
// draws what only the statement can (the task number under the workspace row lock, a zero-step create's step), fills
// it into the rows and stores them. This transaction form is every dialect's; PostgreSQL's store
// (dialect/postgres/creation.ts) implements the same methods with one statement each when their guards hold and
// falls back to these for everything unusual. The Store picks one when it is built.
//
// A zero-step plan's Begin and Complete are one transaction (SPEC §4.3, last bullet): `createSettled`, writing the
// rows, revisions and event `begin` + `enterCompleting` + `settle` leave behind, stored more compactly (SPEC §9: no
// revision 0, which readers rebuild from revision 1; a compact operation) — every reader sees the same (tests compare).
import { randomUUID } from 'node:crypto';
import type { Task, TaskBody } from '../../model/task';
import type { SqlDialect } from '../drivers';
import type { EventKey } from './events';
import type { TxRepositories } from './index';
import type { Sql } from '../types';
import { fillJson, type JsonTemplate } from '../values';
import {
  CreationRepository,
  type ClaimedOperation,
  type CompletedOperation,
  type Fence,
  type NewOperation,
  type SettledDraw,
  type StepChange,
  type StepState,
  type StoredOutcome,
} from './creation';
import type { DeferredIntent } from './launches';

export type Transactor = <T>(fn: (tx: TxRepositories) => Promise<T>) => Promise<T>;

/**
 * One revision row as the domain hands it over: its change label (`begin`, `create`) and the task's snapshot (the
 * TaskBody, encoded on insert, or a template of its stored text: snapshots.ts).
 */
export interface RevisionRow<Snapshot> {
  change: string;
  snapshot: Snapshot;
}

/** Everything Begin writes (SPEC §4.1 step 7). */
export interface BeginRows {
  /** The operation, `preparing`; its plan's steps are written `planned`. */
  operation: NewOperation;
  /** The task `preparing` at revision 0, its number and identifier left for the store to draw (0 and ''). */
  task: Task;
  /** The step had a WIP limit when validated: admission counts the step's tasks under the workspace lock. */
  wipLimited: boolean;
  /** Revision 0, its snapshot's identifier a hole. */
  revision: RevisionRow<JsonTemplate>;
}

/** What the store drew for a new task. */
export interface Drawn {
  number: number;
  identifier: string;
}

export type Refusal = { kind: 'workspace_missing' } | { kind: 'step_missing' } | { kind: 'wip_full' };

export type BeginResult = ({ kind: 'begun' } & Drawn) | Refusal;

/** Phase A's subject: the operation (fenced) and its task. */
export interface CompletingRecord extends Fence {
  taskId: string;
  /** The creating request's first attempt with its own handle: it knows the operation is still `preparing`. */
  fresh: boolean;
}

/** What phase A found: done, or why not (nothing was written but the fence's proof). */
export type CompletingResult =
  | { kind: 'completing' }
  | { kind: 'task_missing' }
  | { kind: 'task_moved'; state: string }
  | { kind: 'operation_moved' };

/** One form of what phase B writes: the task as it leaves it, revision 1 and its event, the outcome. */
export interface SettledWrite {
  task: Task;
  revision: RevisionRow<TaskBody>;
  event: EventKey;
  outcome: StoredOutcome;
}

/** Everything phase B writes (SPEC §4.3). */
export interface SettleRows extends CompletingRecord {
  /** The identity the operation was begun with: settled only if the task still holds it. */
  externalId: string | null;
  actorId: string;
  at: string;
  /** The task still holds its identity (or never had one). */
  held: SettledWrite;
  /** It was released while preparing (absent without an identity). */
  lost?: SettledWrite;
  /** SPEC §5 deferred start: the start-when-unblocked intent, written with the completion. */
  deferred?: DeferredIntent;
}

/** Which form phase B wrote, or why it wrote nothing. */
export type SettleResult = { kind: 'held' | 'lost' } | { kind: 'task_missing' } | { kind: 'lease_lost' };

/** Everything a zero-step create writes in one transaction (SPEC §4.3): Begin's rows as Complete leaves them. */
export interface SettledRows {
  /** A compact record: no plan, no token (SPEC §9). */
  operation: CompletedOperation;
  /** The target step; null when the request named none: the workspace's first step. */
  stepId: string | null;
  /** The task settled and `completed` at revision 1; number, identifier and step ('') are the store's to fill. */
  task: Task;
  /**
   * Revision 1 (holes: identifier, then step id). No revision 0 is stored: readers rebuild it from revision 1
   * (impliedBegin in events.ts).
   */
  revision: RevisionRow<JsonTemplate>;
  /** Revision 1's event, `task.created` (the compact operation's outcome: compactOutcome). */
  event: EventKey;
  /** SPEC §5 deferred start: the start-when-unblocked intent, written with the completion. */
  deferred?: DeferredIntent;
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
  | ({ kind: 'created'; stepId: string } & Drawn)
  | Refusal
  /** `validate` only: the target needs the general path (a folder to plan, or a validation error to report). */
  | { kind: 'unplanned' };

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

/**
 * Why a zero-step create's target refuses it, if it does (inside the transaction that drew its number, which then
 * rolls back). A request validated here (`validate`) that needs the general path — a folder root to plan, an unknown
 * step or parent, a workspace gone — is `unplanned`, so validation reports it in its own words.
 */
async function refusalOf(
  tx: TxRepositories,
  s: SettledRows,
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
   * `preparing` and revision 0. A refused target rolls it all back. A unique violation on uniq_tasks_external_id
   * rolls the whole transaction back — the number included, so identifiers stay gapless — and is thrown for the
   * caller to re-read.
   */
  begin(b: BeginRows): Promise<BeginResult> {
    const op = b.operation;
    return orRolledBack(() =>
      this.transaction(async (tx): Promise<BeginResult> => {
        await tx.creation.insertOperation(op);
        await tx.creation.insertPlannedSteps(op.id, op.plan.steps);
        const drawn = await tx.creation.drawTaskNumber(op.workspaceId);
        if (!drawn) throw new Rollback<BeginResult>({ kind: 'workspace_missing' });
        const step = await tx.creation.wipOccupancy(b.task.stepId);
        if (!step) throw new Rollback<BeginResult>({ kind: 'step_missing' });
        if (step.wipLimit !== null && step.active >= step.wipLimit)
          throw new Rollback<BeginResult>({ kind: 'wip_full' });
        const identifier = `${drawn.prefix}-${drawn.number}`;
        await tx.tasks.insert({ ...b.task, number: drawn.number, identifier });
        await tx.events.insertRevisions([
          {
            taskId: b.task.id,
            revision: 0,
            workspaceId: b.task.workspaceId,
            change: b.revision.change,
            actorId: op.actorId,
            snapshot: fillJson(b.revision.snapshot, [identifier]),
            at: op.at,
          },
        ]);
        return { kind: 'begun', number: drawn.number, identifier };
      }),
    );
  }

  /**
   * SPEC §4.3, zero-step plans — Begin and Complete as ONE transaction: the number (under the workspace row lock, so
   * identifiers stay gapless and WIP admission is exact), the task inserted already settled and `completed` with its
   * target checked in the same statement, revision 1 with the one `task.created` event (after the task, the invariant
   * EventRepository.insertRevision states; revision 0 is rebuilt by readers, not stored), the operation `completed`. A unique violation on
   * uniq_tasks_external_id rolls all of it back, the number included, and is thrown for the caller to re-read
   * (SPEC §4.1 steps 7–8). Nothing is ever visible unsettled; a crash before COMMIT leaves nothing.
   */
  createSettled(s: SettledRows): Promise<SettledResult> {
    const op = s.operation;
    return orRolledBack(() =>
      this.transaction(async (tx): Promise<SettledResult> => {
        const drawn = await tx.creation.drawSettledNumber(op.workspaceId, s.stepId, s.task.parentId);
        const refused = await refusalOf(tx, s, drawn);
        if (refused || !drawn?.stepId) throw new Rollback<SettledResult>(refused ?? { kind: 'unplanned' });
        const { number, stepId } = drawn;
        const identifier = `${drawn.prefix}-${number}`;
        const holes = [identifier, stepId];
        await tx.tasks.insert({ ...s.task, number, identifier, stepId });
        await tx.events.insertRevisions([
          {
            taskId: s.task.id,
            revision: 1,
            workspaceId: s.task.workspaceId,
            change: s.revision.change,
            actorId: op.actorId,
            snapshot: fillJson(s.revision.snapshot, holes),
            at: op.at,
            event: s.event,
          },
        ]);
        await tx.creation.insertCompletedOperation(op);
        if (s.deferred) await tx.launches.insertDeferredIntent(s.deferred);
        await s.beforeCommit?.();
        return { kind: 'created', number, identifier, stepId };
      }),
    );
  }

  /**
   * SPEC §4.3 phase A, one transaction: task then operation (the lock order of release and delete) move
   * `preparing → completing`, the operation fenced by its generation. Anything else writes nothing and says what it
   * found: the task deleted meanwhile, or task or operation in another state. Throws LeaseLostError for a stale owner.
   */
  enterCompleting(c: CompletingRecord): Promise<CompletingResult> {
    return orRolledBack(() =>
      this.transaction(async (tx): Promise<CompletingResult> => {
        if (!(await tx.creation.markTaskCompleting(c.taskId))) {
          await tx.creation.assertOwner(c);
          const task = await tx.tasks.findById(c.taskId);
          if (!task) throw new Rollback<CompletingResult>({ kind: 'task_missing' });
          if (task.creationState !== 'completing')
            throw new Rollback<CompletingResult>({ kind: 'task_moved', state: task.creationState });
        }
        if (!(await tx.creation.markOperationCompleting(c, new Date().toISOString()))) {
          await tx.creation.assertOwner(c);
          throw new Rollback<CompletingResult>({ kind: 'operation_moved' });
        }
        return { kind: 'completing' };
      }),
    );
  }

  /**
   * SPEC §4.3 phase B, one transaction: settle the identity only if the task still holds it (the `held` rows; else
   * the `lost` ones), mark the task completed, write revision 1 and exactly one `task.created` event (and a deferred
   * start's intent), and finish the operation — its last write, fenced, so a stale owner's whole transaction rolls
   * back (`lease_lost`). `task_missing`, having written nothing, when the task was deleted meanwhile.
   */
  settle(s: SettleRows): Promise<SettleResult> {
    return orRolledBack(() =>
      this.transaction(async (tx): Promise<SettleResult> => {
        let kind: 'held' | 'lost' = 'held';
        let found = false;
        if (s.externalId !== null) {
          found = (await tx.creation.settleTask(s.taskId, s.externalId, s.at)) !== undefined;
          if (!found) kind = 'lost';
        }
        found ||= (await tx.creation.completeTask(s.taskId, s.at)) !== undefined;
        if (!found) {
          await tx.creation.assertOwner(s);
          throw new Rollback<SettleResult>({ kind: 'task_missing' });
        }
        const write = kind === 'held' ? s.held : s.lost!;
        const { task, revision, event } = write;
        await tx.events.insertRevision(task, revision.change, s.actorId, revision.snapshot, s.at, event);
        if (s.deferred) await tx.launches.insertDeferredIntent(s.deferred);
        if (!(await tx.creation.finishCompleted(s, write.outcome, s.at)))
          throw new Rollback<SettleResult>({ kind: 'lease_lost' });
        return { kind };
      }),
    );
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
