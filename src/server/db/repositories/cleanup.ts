// SPEC §4.4: compensations handed to cleanup. Abort records a compensation that failed as `handed_to_cleanup`
// (with when to try again); the runtime claims due ones, retries them with backoff until they succeed, and
// operators see the ones that keep failing (health, the console). On the driver: claims run in every process's
// runtime pass, and health reads the summary; the partial index idx_creation_steps_cleanup holds only these steps.
import type { CreationPlan, StepKind } from '../../domain/creation/plan';
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { json, num, str, strOrNull } from '../values';

const HANDED = `compensation_state = 'handed_to_cleanup'`;

/** A due compensation this process claimed, with what rebuilding its step context needs. */
export interface CleanupClaim {
  operationId: string;
  generation: number;
  taskId: string;
  workspaceId: string;
  actorId: string;
  externalId: string | null;
  plan: CreationPlan;
  index: number;
  kind: StepKind;
  params: Record<string, unknown>;
  evidence: Record<string, unknown> | null;
  /** Tries so far (Abort's own included). */
  attempts: number;
}

/** A compensation waiting for cleanup, as operators see it. */
export interface CleanupEntry {
  operationId: string;
  workspaceId: string;
  taskId: string;
  externalId: string | null;
  stepIndex: number;
  kind: string;
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
}

const ENTRY_COLUMNS = `s.operation_id, o.workspace_id, o.task_id, o.external_id, s.step_index, s.kind, s.compensation_attempts,
  s.compensation_error, s.compensation_next_at`;

function toEntry(r: Record<string, unknown>): CleanupEntry {
  return {
    operationId: str(r.operation_id),
    workspaceId: str(r.workspace_id),
    taskId: str(r.task_id),
    externalId: strOrNull(r.external_id),
    stepIndex: num(r.step_index),
    kind: str(r.kind),
    attempts: num(r.compensation_attempts ?? 0),
    lastError: strOrNull(r.compensation_error),
    nextAttemptAt: strOrNull(r.compensation_next_at),
  };
}

export class CleanupRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Abort's compensation failed: the step waits for cleanup, first retry at `nextAt` (call inside the fence). */
  async handOver(operationId: string, index: number, error: string, nextAt: string): Promise<void> {
    await this.sql.run(
      `UPDATE creation_steps SET compensation_state = 'handed_to_cleanup', compensation_attempts = 1, compensation_error = $3,
         compensation_next_at = $4 WHERE operation_id = $1 AND step_index = $2`,
      [operationId, index, error, nextAt],
    );
  }

  /** Due compensations, oldest first; rows another claimer holds are skipped (PostgreSQL). */
  async listDue(now: string, limit: number): Promise<Array<{ operationId: string; index: number }>> {
    const rows = await this.sql.query<{ operation_id: unknown; step_index: unknown }>(
      `SELECT operation_id, step_index FROM creation_steps WHERE ${HANDED} AND compensation_next_at <= $1
       ORDER BY compensation_next_at LIMIT ${Math.max(1, Math.floor(limit))}${this.dialect.skipLocked}`,
      [now],
    );
    return rows.map((r) => ({ operationId: str(r.operation_id), index: num(r.step_index) }));
  }

  /** Compare-and-set: pushes a due step's next attempt to `until` (the claim's lease); false if someone was first. */
  async claim(operationId: string, index: number, now: string, until: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE creation_steps SET compensation_next_at = $4 WHERE operation_id = $1 AND step_index = $2 AND ${HANDED} AND compensation_next_at <= $3`,
      [operationId, index, now, until],
    );
    return n > 0;
  }

  async load(operationId: string, index: number): Promise<CleanupClaim | undefined> {
    const r = await this.sql.one<Record<string, unknown>>(
      `SELECT o.id, o.generation, o.task_id, o.workspace_id, o.actor_id, o.external_id, o.plan, s.step_index, s.kind, s.params, s.evidence,
         s.compensation_attempts
       FROM creation_steps s JOIN creation_operations o ON o.id = s.operation_id
       WHERE s.operation_id = $1 AND s.step_index = $2 AND s.${HANDED}`,
      [operationId, index],
    );
    if (!r) return undefined;
    return {
      operationId: str(r.id),
      generation: num(r.generation),
      taskId: str(r.task_id),
      workspaceId: str(r.workspace_id),
      actorId: str(r.actor_id),
      externalId: strOrNull(r.external_id),
      plan: json<CreationPlan>(r.plan),
      index: num(r.step_index),
      kind: str(r.kind) as StepKind,
      params: json<Record<string, unknown>>(r.params),
      evidence: r.evidence ? json<Record<string, unknown>>(r.evidence) : null,
      attempts: num(r.compensation_attempts ?? 1),
    };
  }

  /** The retry succeeded: the effect is undone. */
  async markCompensated(operationId: string, index: number): Promise<void> {
    await this.sql.run(
      `UPDATE creation_steps SET compensation_state = 'compensated', compensation_attempts = COALESCE(compensation_attempts, 0) + 1,
         compensation_error = NULL, compensation_next_at = NULL WHERE operation_id = $1 AND step_index = $2 AND ${HANDED}`,
      [operationId, index],
    );
  }

  /** The retry failed again: counted, with its error and the next attempt. */
  async reschedule(operationId: string, index: number, error: string, nextAt: string): Promise<void> {
    await this.sql.run(
      `UPDATE creation_steps SET compensation_attempts = COALESCE(compensation_attempts, 0) + 1, compensation_error = $3,
         compensation_next_at = $4 WHERE operation_id = $1 AND step_index = $2 AND ${HANDED}`,
      [operationId, index, error, nextAt],
    );
  }

  /** How many compensations wait for cleanup, and those tried at least `failingAfter` times (oldest first). */
  async summary(failingAfter: number, limit: number): Promise<{ pending: number; failing: CleanupEntry[] }> {
    const total = await this.sql.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM creation_steps WHERE ${HANDED}`);
    const failing = await this.sql.query<Record<string, unknown>>(
      `SELECT ${ENTRY_COLUMNS} FROM creation_steps s JOIN creation_operations o ON o.id = s.operation_id
       WHERE s.${HANDED} AND s.compensation_attempts >= $1 ORDER BY s.compensation_next_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [failingAfter],
    );
    return { pending: num(total?.n ?? 0), failing: failing.map(toEntry) };
  }

  /** How many compensations waiting for cleanup were tried at least `failingAfter` times. */
  async countFailing(failingAfter: number): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM creation_steps WHERE ${HANDED} AND compensation_attempts >= $1`,
      [failingAfter],
    );
    return num(row?.n ?? 0);
  }

  /** The workspace's compensations waiting for cleanup (the console's operations page), most tried first. */
  async listWaiting(workspaceId: string, limit: number): Promise<CleanupEntry[]> {
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT ${ENTRY_COLUMNS} FROM creation_steps s JOIN creation_operations o ON o.id = s.operation_id
       WHERE s.${HANDED} AND o.workspace_id = $1 ORDER BY s.compensation_attempts DESC, s.compensation_next_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [workspaceId],
    );
    return rows.map(toEntry);
  }
}
