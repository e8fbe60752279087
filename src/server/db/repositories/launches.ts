// Agent sessions, launch intents and launches (SPEC §4.1 step 10, §5): rows the `session_prepare` and
// `launch_intent` steps make, and the dispatcher's claims and records. On the driver: they run inside fenced step
// transactions and in the recovery runtime's dispatch pass.
import type { SqlDialect } from '../drivers';
import type { Sql } from '../types';
import { json, num, placeholders, str, strOrNull } from '../values';

export interface PreparedSession {
  id: string;
  workspaceId: string;
  taskId: string;
  profileId: string | null;
  /** The step that prepared it; null for a session prepared when a deferred intent was promoted. */
  operationId: string | null;
  stepIndex: number | null;
  at: string;
}

export interface ImmediateIntent {
  id: string;
  workspaceId: string;
  taskId: string;
  sessionId: string;
  profileId: string | null;
  operationId: string;
  stepIndex: number;
  at: string;
}

/** SPEC §5 deferred start: one start-when-unblocked intent, promoted when the last blocker is done. */
export interface DeferredIntent {
  id: string;
  workspaceId: string;
  taskId: string;
  profileId: string | null;
  operationId: string;
  blockedBy: string[];
  at: string;
}

export type WaitingIntent = Pick<DeferredIntent, 'id' | 'workspaceId' | 'taskId' | 'profileId' | 'blockedBy'>;

export interface LaunchProfile {
  id: string;
  name: string;
  runner: string;
  config: Record<string, unknown>;
}

/** What a runner needs to launch one claimed intent. */
export interface LaunchTarget {
  intentId: string;
  sessionId: string;
  taskId: string;
  workspaceId: string;
  attempts: number;
  identifier: string;
  title: string;
  profile: LaunchProfile | null;
}

export interface LaunchRecord {
  id: string;
  intentId: string;
  sessionId: string;
  taskId: string;
  runner: string;
  detail: Record<string, unknown>;
  at: string;
}

export class LaunchRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  // ---- what the steps make (idempotent under their deterministic ids) ------------------------------------------

  async prepareSession(s: PreparedSession): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_sessions (id, workspace_id, task_id, profile_id, operation_id, step_index, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'prepared', $7, $7) ON CONFLICT DO NOTHING`,
      [s.id, s.workspaceId, s.taskId, s.profileId, s.operationId, s.stepIndex, s.at],
    );
  }

  async sessionExists(id: string): Promise<boolean> {
    return (await this.sql.one('SELECT id FROM agent_sessions WHERE id = $1', [id])) !== undefined;
  }

  async deleteSession(id: string): Promise<void> {
    await this.sql.run('DELETE FROM agent_sessions WHERE id = $1', [id]);
  }

  async insertImmediateIntent(i: ImmediateIntent): Promise<void> {
    await this.sql.run(
      `INSERT INTO launch_intents (id, workspace_id, task_id, session_id, profile_id, operation_id, step_index, kind, state,
         blocked_by, attempts, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'immediate', 'pending', '[]', 0, $8, $8) ON CONFLICT DO NOTHING`,
      [i.id, i.workspaceId, i.taskId, i.sessionId, i.profileId, i.operationId, i.stepIndex, i.at],
    );
  }

  /** Written with the completion (so never before it); step index -1: no step made it. */
  async insertDeferredIntent(i: DeferredIntent): Promise<void> {
    await this.sql.run(
      `INSERT INTO launch_intents (id, workspace_id, task_id, session_id, profile_id, operation_id, step_index, kind, state,
         blocked_by, attempts, created_at, updated_at)
       VALUES ($1, $2, $3, NULL, $4, $5, -1, 'deferred', 'waiting', $6, 0, $7, $7) ON CONFLICT DO NOTHING`,
      [i.id, i.workspaceId, i.taskId, i.profileId, i.operationId, JSON.stringify(i.blockedBy), i.at],
    );
  }

  async intentExists(id: string): Promise<boolean> {
    return (await this.sql.one('SELECT id FROM launch_intents WHERE id = $1', [id])) !== undefined;
  }

  async deleteIntent(id: string): Promise<void> {
    await this.sql.run('DELETE FROM launch_intents WHERE id = $1', [id]);
  }

  // ---- dispatch ------------------------------------------------------------------------------------------------

  /** Deferred intents still waiting, of tasks whose creation completed. */
  async listWaiting(): Promise<WaitingIntent[]> {
    const rows = await this.sql.query<Record<string, unknown>>(
      `SELECT li.id, li.blocked_by, li.workspace_id, li.task_id, li.profile_id FROM launch_intents li
       JOIN tasks t ON t.id = li.task_id
       WHERE li.state = 'waiting' AND t.creation_state = 'completed'`,
    );
    return rows.map((r) => ({
      id: str(r.id),
      blockedBy: json<string[]>(r.blocked_by),
      workspaceId: str(r.workspace_id),
      taskId: str(r.task_id),
      profileId: strOrNull(r.profile_id),
    }));
  }

  /** Of these blockers, how many still exist outside a done step (a deleted blocker no longer blocks). */
  async countOpenBlockers(taskIds: readonly string[]): Promise<number> {
    if (taskIds.length === 0) return 0;
    const row = await this.sql.one<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM tasks t JOIN workflow_steps s ON s.id = t.step_id
       WHERE s.is_done = $1 AND t.id IN (${placeholders(2, taskIds.length)})`,
      [false, ...taskIds],
    );
    return num(row?.n ?? 0);
  }

  /** waiting → pending with its session; false if another pass promoted it first. */
  async markPending(intentId: string, sessionId: string, at: string): Promise<boolean> {
    const n = await this.sql.run(
      "UPDATE launch_intents SET state = 'pending', session_id = $2, updated_at = $3 WHERE id = $1 AND state = 'waiting'",
      [intentId, sessionId, at],
    );
    return n > 0;
  }

  /** Intents ready to launch (pending, or a launch claim that ran out), of tasks whose creation completed. */
  async listDue(now: string, limit: number): Promise<string[]> {
    const rows = await this.sql.query<{ id: unknown }>(
      `SELECT li.id FROM launch_intents li JOIN tasks t ON t.id = li.task_id
       WHERE t.creation_state = 'completed' AND (li.state = 'pending' OR (li.state = 'launching' AND li.lease_expires_at < $1))
       ORDER BY li.created_at LIMIT ${Math.max(1, Math.floor(limit))}`,
      [now],
    );
    return rows.map((r) => str(r.id));
  }

  /** Compare-and-set claim of one launch for `owner` until `until`; false if another process holds it. */
  async claim(intentId: string, owner: string, until: string, now: string): Promise<boolean> {
    const n = await this.sql.run(
      `UPDATE launch_intents SET state = 'launching', attempts = attempts + 1, lease_owner = $2, lease_expires_at = $3, updated_at = $4
       WHERE id = $1 AND (state = 'pending' OR (state = 'launching' AND lease_expires_at < $4))`,
      [intentId, owner, until, now],
    );
    return n > 0;
  }

  async findTarget(intentId: string): Promise<LaunchTarget | undefined> {
    const row = await this.sql.one<Record<string, unknown>>(
      `SELECT li.id, li.session_id, li.task_id, li.workspace_id, li.attempts, t.identifier, t.title,
              p.id AS p_id, p.name AS p_name, p.runner AS p_runner, p.config AS p_config
       FROM launch_intents li JOIN tasks t ON t.id = li.task_id LEFT JOIN agent_profiles p ON p.id = li.profile_id
       WHERE li.id = $1`,
      [intentId],
    );
    if (!row) return undefined;
    return {
      intentId: str(row.id),
      sessionId: str(row.session_id),
      taskId: str(row.task_id),
      workspaceId: str(row.workspace_id),
      attempts: num(row.attempts),
      identifier: str(row.identifier),
      title: str(row.title),
      profile: row.p_id
        ? {
            id: str(row.p_id),
            name: str(row.p_name),
            runner: str(row.p_runner),
            config: json<Record<string, unknown>>(row.p_config),
          }
        : null,
    };
  }

  /** Recorded once per intent (agent_launches is unique per intent). */
  async insertLaunch(l: LaunchRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO agent_launches (id, intent_id, session_id, task_id, runner, detail, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      [l.id, l.intentId, l.sessionId, l.taskId, l.runner, JSON.stringify(l.detail), l.at],
    );
  }

  async markSessionRunning(sessionId: string, at: string): Promise<void> {
    await this.sql.run(
      "UPDATE agent_sessions SET state = 'running', started_at = COALESCE(started_at, $2), updated_at = $2 WHERE id = $1",
      [sessionId, at],
    );
  }

  async markLaunched(intentId: string, at: string): Promise<void> {
    await this.sql.run(
      "UPDATE launch_intents SET state = 'launched', launched_at = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2 WHERE id = $1",
      [intentId, at],
    );
  }

  /** A built-in run ended: the launch's detail gains how (exit status, output tail), the session its end state. */
  async recordExit(
    intentId: string,
    sessionId: string,
    detail: Record<string, unknown>,
    state: 'finished' | 'failed',
    at: string,
  ): Promise<void> {
    await this.sql.run('UPDATE agent_launches SET detail = $2 WHERE intent_id = $1', [
      intentId,
      JSON.stringify(detail),
    ]);
    await this.sql.run('UPDATE agent_sessions SET state = $2, updated_at = $3 WHERE id = $1', [sessionId, state, at]);
  }

  /** Gives a failed launch back (`pending`: retried later) or gives up on it (`failed`). */
  async releaseClaim(intentId: string, state: 'pending' | 'failed', error: string, at: string): Promise<void> {
    await this.sql.run(
      'UPDATE launch_intents SET state = $2, last_error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = $4 WHERE id = $1',
      [intentId, state, error, at],
    );
  }
}
