// Console read model (issue 8, SPEC §13): the snake_case rows the operator console shows. These are operator
// views, not the public task body: they carry settlement and creation state, which ordinary task reads never do
// (SPEC §3). Every reader checks `read` on the workspace first; a workspace the actor cannot see is a 404.
import { can, type Actor } from '../../auth/actor';
import type { Row } from '../../db/types';
import { json, num, numOrNull, str, strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';

export function requireRead(actor: Actor, workspaceId: string): void {
  if (!can(actor, workspaceId, 'read')) throw new DomainError('not_found');
}

/** Whether the task's identity is settled (SPEC §4.3), unsettled (a create may still be running), or absent. */
export type Settlement = 'settled' | 'unsettled' | 'none';

export function settlementOf(r: Row): Settlement {
  if (r.external_id === null || r.external_id === undefined) return 'none';
  return r.external_id_settled_at === null || r.external_id_settled_at === undefined ? 'unsettled' : 'settled';
}

/** Task columns for console rows, with the step name (`s`) joined. */
export const CONSOLE_TASK_COLUMNS =
  't.id, t.workspace_id, t.identifier, t.number, t.title, t.external_id, t.external_id_settled_at, t.creation_state, t.archived_at, t.created_at, t.updated_at, t.revision, t.step_id, s.name AS step_name';

export function toConsoleTask(r: Row) {
  return {
    id: str(r.id),
    workspace_id: str(r.workspace_id),
    identifier: str(r.identifier),
    title: str(r.title),
    external_id: strOrNull(r.external_id),
    external_id_settled_at: strOrNull(r.external_id_settled_at),
    settlement: settlementOf(r),
    creation_state: str(r.creation_state),
    archived_at: strOrNull(r.archived_at),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
    revision: num(r.revision),
    step_id: str(r.step_id),
    step_name: strOrNull(r.step_name),
  };
}
export type ConsoleTask = ReturnType<typeof toConsoleTask>;

/** Operation columns (never `token_hash` or `plan`'s internals), with step progress counted. */
export const OPERATION_COLUMNS = `o.id, o.workspace_id, o.task_id, o.actor_id, o.external_id, o.state, o.identity_released, o.generation,
  o.lease_owner, o.lease_expires_at, o.outcome, o.error, o.created_at, o.updated_at, o.finished_at,
  (SELECT COUNT(*) FROM creation_steps cs WHERE cs.operation_id = o.id) AS steps_total,
  (SELECT COUNT(*) FROM creation_steps cs WHERE cs.operation_id = o.id AND cs.state = 'succeeded') AS steps_succeeded`;

function outcomeKind(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  try {
    const parsed = json<unknown>(v);
    if (parsed && typeof parsed === 'object' && 'kind' in parsed) return String((parsed as { kind: unknown }).kind);
    return typeof parsed === 'string' ? parsed : null;
  } catch {
    return str(v);
  }
}

export function toOperation(r: Row) {
  return {
    id: str(r.id),
    workspace_id: str(r.workspace_id),
    task_id: str(r.task_id),
    task_identifier: strOrNull(r.task_identifier),
    actor_id: str(r.actor_id),
    external_id: strOrNull(r.external_id),
    state: str(r.state),
    identity_released: r.identity_released === true || num(r.identity_released) === 1,
    generation: num(r.generation),
    lease_owner: strOrNull(r.lease_owner),
    lease_expires_at: strOrNull(r.lease_expires_at),
    outcome: outcomeKind(r.outcome),
    error: strOrNull(r.error),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
    finished_at: strOrNull(r.finished_at),
    steps_total: numOrNull(r.steps_total) ?? 0,
    steps_succeeded: numOrNull(r.steps_succeeded) ?? 0,
  };
}
export type ConsoleOperation = ReturnType<typeof toOperation>;

/** A JSON text column shown to an operator: pretty-printed when it parses, verbatim otherwise. */
export function prettyJson(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  try {
    return JSON.stringify(json<unknown>(v), null, 2);
  } catch {
    return str(v);
  }
}

export function toEvent(r: Row) {
  let identifier: string | null = null;
  let externalId: string | null = null;
  try {
    const p = json<{ task?: { identifier?: string; external_id?: string } }>(r.payload);
    identifier = p.task?.identifier ?? null;
    externalId = p.task?.external_id ?? null;
  } catch {
    // A payload that does not parse still lists its type and revision.
  }
  return {
    seq: num(r.seq),
    id: str(r.id),
    task_id: str(r.task_id),
    type: str(r.type),
    revision: num(r.revision),
    created_at: str(r.created_at),
    task_identifier: identifier,
    external_id: externalId,
  };
}
export type ConsoleEvent = ReturnType<typeof toEvent>;
