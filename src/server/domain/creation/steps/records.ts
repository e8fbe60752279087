// The stored progress of each planned step (creation_steps), and the StepContext built from it.
import type { Sql } from '../../../db/types';
import { json, num, str, strOrNull } from '../../../db/values';
import type { Services } from '../../../services';
import { DomainError, type ErrorCode } from '../../errors/domain-error';
import { fenced } from '../fence';
import type { CreationHandle } from '../operation';
import type { StepKind } from '../plan';
import type { Evidence, StepContext } from './types';

export type StepState = 'planned' | 'running' | 'succeeded' | 'failed' | 'unknown';

export interface StepRecord {
  index: number;
  kind: StepKind;
  params: Record<string, unknown>;
  state: StepState;
  attempts: number;
  evidence: Evidence | null;
  error: string | null;
  compensationState: string | null;
  leaseExpiresAt: string | null;
}

export async function loadSteps(sql: Sql, operationId: string): Promise<StepRecord[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT step_index, kind, params, state, attempts, evidence, error, compensation_state, lease_expires_at
     FROM creation_steps WHERE operation_id = $1 ORDER BY step_index`,
    [operationId],
  );
  return rows.map((r) => ({
    index: num(r.step_index),
    kind: str(r.kind) as StepKind,
    params: json<Record<string, unknown>>(r.params),
    state: str(r.state) as StepState,
    attempts: num(r.attempts),
    evidence: r.evidence ? json<Evidence>(r.evidence) : null,
    error: strOrNull(r.error),
    compensationState: strOrNull(r.compensation_state),
    leaseExpiresAt: strOrNull(r.lease_expires_at),
  }));
}

/** A fenced update of one step row; returns the number of rows changed (0: the expected state did not hold). */
export function updateStep(
  services: Services,
  handle: CreationHandle,
  index: number,
  set: string,
  params: unknown[],
  where = 'TRUE',
): Promise<number> {
  return fenced(services.db, handle, (tx) =>
    tx.run(`UPDATE creation_steps SET ${set} WHERE operation_id = $1 AND step_index = $2 AND ${where}`, [handle.operationId, index, ...params]),
  );
}

export function stepContext(services: Services, handle: CreationHandle, step: StepRecord): StepContext {
  return {
    services,
    handle,
    index: step.index,
    params: step.params,
    prior: step.evidence,
    async identifier() {
      const row = await services.db.one<{ identifier: unknown }>('SELECT identifier FROM tasks WHERE id = $1', [handle.taskId]);
      if (!row) throw new DomainError('task_not_created');
      return str(row.identifier);
    },
    async note(evidence) {
      await updateStep(services, handle, step.index, 'evidence = $3', [JSON.stringify(evidence)], "state = 'running'");
    },
    tx: (fn) => fenced(services.db, handle, fn),
  };
}

/** The error a step failed with, as stored and as the caller sees it (SPEC §4.4: mapped through DomainError). */
export function toStepError(err: unknown, kind: StepKind): DomainError {
  if (err instanceof DomainError) return err;
  return new DomainError('creation_step_failed', kind);
}

export function storeError(err: DomainError): string {
  return JSON.stringify({ code: err.code, detail: err.detail ?? null, message: err.message });
}

export function loadError(stored: string | null, kind: StepKind): DomainError {
  try {
    const e = json<{ code: ErrorCode; detail: string | null }>(stored ?? '');
    return new DomainError(e.code, e.detail ?? undefined);
  } catch {
    return new DomainError('creation_step_failed', kind);
  }
}
