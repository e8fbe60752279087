// The creation operation and its in-process handle (SPEC §4.2).
import type { Actor } from '../access';
import type { CreationPlan } from './plan';
import type { Task } from '../../model/task';

export type OperationState = 'preparing' | 'completing' | 'completed' | 'aborting' | 'aborted';

/**
 * The capability Begin returns for Created only. It binds operation, task, workspace, actor, plan and a random
 * token (stored hashed). It lives only in this process: never serialized to a client, a log or an event.
 */
export interface CreationHandle {
  readonly operationId: string;
  readonly taskId: string;
  readonly workspaceId: string;
  readonly actor: Actor;
  readonly plan: CreationPlan;
  readonly externalId: string | null;
  readonly token: string;
  /** The fence (SPEC §4.2): every write for the operation checks it, so a stale owner's writes change nothing. */
  readonly generation: number;
  /** Built by the recovery runtime from the stored operation: it has no token, its authority is `generation`. */
  readonly recovered?: boolean;
  /** The task row exactly as Begin wrote it — only on the creating request's handle (one-statement Complete). */
  readonly begun?: Task;
  /**
   * SPEC §13: the request this holder works in — the creating request's X-Request-Id, or the id a recovery takeover
   * made for itself. What it records in the operation's history carries it. Null in process (CLI, tests).
   */
  readonly requestId?: string | null;
}

/**
 * SPEC §4.1 step 10: asynchronous work (the agent launch) starts only after Complete succeeded. The runtime provides
 * it through Services (runtime/dispatcher.ts), so the domain never imports the runtime.
 */
export interface CreationDispatcher {
  afterComplete(plan: Pick<CreationPlan, 'startPolicy'>): void;
}

/** SPEC §3 / STYLE habit 9: outcomes are types. */
export type CreateOutcome =
  | { kind: 'created'; task: Task }
  | { kind: 'found_settled'; task: Task }
  | { kind: 'found_unsettled'; task: Task }
  | { kind: 'created_identity_lost'; task: Task };

export function isDeduplicated(o: CreateOutcome): boolean {
  return o.kind === 'found_settled' || o.kind === 'found_unsettled';
}

/** `creation_complete`: required synchronous setup finished — never "task done" or "agent running". */
export function isCreationComplete(o: CreateOutcome): boolean {
  return o.kind !== 'found_unsettled';
}
