// Console read model (SPEC §13): the snake_case rows the operator console shows. These are operator views, not the
// public task body: they carry settlement and creation state, which ordinary task reads never do (SPEC §3). Every
// reader checks `read` on the workspace first; a workspace the actor cannot see is a 404. The rows are read by
// db/repositories/console.ts; this module is their contract (a leaf: types and rules only).
import { can, type Actor } from '../access';
import { DomainError } from '../errors/domain-error';
import { settlementOf, type Settlement } from '../../model/task';

export function requireRead(actor: Actor, workspaceId: string): void {
  if (!can(actor, workspaceId, 'read')) throw new DomainError('not_found');
}

// ---- the task browser ----

export const BROWSE_SORTS = ['external_id', 'identifier', 'created_at', 'title', 'step'] as const;
export const SETTLEMENT_FILTERS = ['any', 'settled', 'unsettled', 'none'] as const;

/** What the tasks page shows: filters and a sort (the page's URL holds all of them, SPEC §13). */
export interface BrowseQuery {
  workspaceId: string;
  /** Tasks whose external id starts with this, byte for byte (SPEC §2.1: nothing folded); null: no prefix. */
  prefix: string | null;
  settlement: (typeof SETTLEMENT_FILTERS)[number];
  archived: 'include' | 'exclude' | 'only';
  stepId: string | null;
  /** ISO 8601: created at or after / strictly before. */
  createdFrom: string | null;
  createdBefore: string | null;
  sort: (typeof BROWSE_SORTS)[number];
  dir: 'asc' | 'desc';
}

/**
 * A keyset position: the row a page starts after (or ends before). `segment` says which part of the order the row is
 * in (sorting by external id lists holders, then tasks without one); `key` is the row's sort key (the task number for
 * `identifier`, the step position for `step`; null for a task without an identity); `number` breaks ties.
 */
export interface BrowseCursor {
  segment: 'held' | 'none' | 'all';
  key: string | number | null;
  number: number;
}

export const OPERATION_STATES = ['preparing', 'completing', 'completed', 'aborting', 'aborted'] as const;
/** `open`: still running or being undone (preparing, completing, aborting). */
export type OperationStateFilter = (typeof OPERATION_STATES)[number] | 'open';

// ---- the operations and releases lists (SPEC §13: paged with a total, filterable, nothing silently cut off) ----

/** A position in a newest-first list: the row's creation time, then its id (ties in time are ordered by id). */
export interface ListCursor {
  at: string;
  id: string;
}

export interface ListPage {
  cursor: ListCursor | null;
  /** `true`: the page before the cursor (newer rows), read towards the start. */
  backwards: boolean;
  limit: number;
}

/** What the operations list shows: every filter is in the console's URL. */
export interface OperationsQuery {
  workspaceId: string;
  state: OperationStateFilter | null;
  /** Operations whose external id starts with this, byte for byte. */
  prefix: string | null;
  /** ISO 8601: begun at or after / strictly before. */
  from: string | null;
  before: string | null;
  /** An operation id, or its first characters (at least 4: the console shows 8); lower-cased. */
  idPrefix: string | null;
  /** A request id: of the request that began the operation, or of a takeover or attempt in its history. */
  requestId: string | null;
}

export const RELEASE_RESULTS = ['released', 'nothing_held_it'] as const;

export interface ReleasesQuery {
  workspaceId: string;
  result: (typeof RELEASE_RESULTS)[number] | null;
  actorId: string | null;
  /** `with`/`without` a reason, or reasons containing this text (ASCII letters in any case). */
  reason: { kind: 'with' | 'without' } | { kind: 'containing'; text: string } | null;
  prefix: string | null;
  from: string | null;
  before: string | null;
  /** A release's id, Idempotency-Key or request id, exactly (keys compare lower-cased). */
  search: string | null;
}

/** Who acted, for people (SPEC §13: "who did it" — never "unknown" when the id is known). */
export interface ConsoleActor {
  id: string;
  kind: 'user' | 'token' | 'system' | 'unknown';
  /** A user's email (and name), `token “name”`, `recovery`, `CLI (name)`; for an id nothing names: its first characters. */
  label: string;
}

/** The step an open operation is on: the first in plan order that has not succeeded. */
export interface CurrentStep {
  index: number;
  kind: string;
  state: string;
  attempts: number;
  started_at: string | null;
}

export interface ConsoleTask {
  id: string;
  workspace_id: string;
  identifier: string;
  title: string;
  external_id: string | null;
  external_id_settled_at: string | null;
  settlement: Settlement;
  creation_state: string;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  revision: number;
  step_id: string;
  step_name: string | null;
}

/** A console task as the data layer reads it: the columns, without the settlement the domain reads from two of them. */
export type ConsoleTaskRow = Omit<ConsoleTask, 'settlement'>;

/** The row with its settlement (SPEC §4.3), in the order the console's answers have always listed the fields. */
export function consoleTask(row: ConsoleTaskRow): ConsoleTask {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    identifier: row.identifier,
    title: row.title,
    external_id: row.external_id,
    external_id_settled_at: row.external_id_settled_at,
    settlement: settlementOf(row.external_id, row.external_id_settled_at),
    creation_state: row.creation_state,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    revision: row.revision,
    step_id: row.step_id,
    step_name: row.step_name,
  };
}

/** A creation operation (never its `token_hash` or `plan`'s internals), with step progress counted. */
export interface ConsoleOperation {
  id: string;
  workspace_id: string;
  task_id: string;
  task_identifier: string | null;
  actor_id: string;
  external_id: string | null;
  state: string;
  identity_released: boolean;
  generation: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  /** The outcome's `kind` (e.g. `created`, `created_identity_lost`). */
  outcome: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  steps_total: number;
  steps_succeeded: number;
  /** While it is open: the step it is on (null for a zero-step plan, or once every step succeeded). */
  current_step: CurrentStep | null;
  /** The X-Request-Id of the request that began it (SPEC §13); null before request ids were kept, or in process. */
  request_id: string | null;
  actor: ConsoleActor;
}

/** One step of an operation's timeline; JSON columns pretty-printed for people. */
export interface ConsoleStep {
  index: number;
  kind: string;
  params: string | null;
  state: string;
  attempts: number;
  evidence: string | null;
  error: string | null;
  compensation_state: string | null;
  /** SPEC §4.4 cleanup: how often the compensation was tried, why it last failed, when it is tried next. */
  compensation_attempts: number | null;
  compensation_error: string | null;
  compensation_next_at: string | null;
  lease_expires_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

/**
 * One entry of an operation's history (SPEC §6, §13; creation_history): a recovery takeover, a step recovery
 * reconciled, or the start of an Abort. `generation` and `lease_owner` are the operation's when it happened (for a
 * takeover: the new holder's).
 */
export type ConsoleHistoryEntry = {
  at: string;
  generation: number;
  lease_owner: string | null;
  request_id: string | null;
} & (
  | { kind: 'takeover'; previous_owner: string | null; lease_expired_at: string | null; lease_until: string | null }
  | {
      kind: 'step_reconciled';
      step_index: number;
      step_kind: string;
      decision: 'succeeded' | 'rerun' | 'failed';
      attempts: number;
    }
  | { kind: 'aborting'; error: string; resumed: boolean }
  | { kind: 'attempt_failed'; error: string; step_index: number | null; step_kind: string | null }
);

export interface ConsoleRevision {
  revision: number;
  change: string;
  actor_id: string | null;
  actor: ConsoleActor | null;
  snapshot: string | null;
  created_at: string;
}

export interface ConsoleEvent {
  seq: number;
  id: string;
  task_id: string;
  type: string;
  revision: number;
  created_at: string;
  /** From the payload's task, when it parses. */
  task_identifier: string | null;
  external_id: string | null;
}

export interface OverviewCounts {
  tasks: number;
  archived: number;
  unsettled: number;
  creations_in_flight: number;
  releases_24h: number;
  released_24h: number;
}
