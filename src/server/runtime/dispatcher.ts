// SPEC §4.1 step 10 / §5: asynchronous dispatch after Complete. Launch intents are launched only for tasks whose
// creation is `completed` (the join below), so nothing asynchronous ever starts before Complete; a deferred
// intent is promoted when the last of its blockers sits in a done step. Each launch is claimed with a
// compare-and-set and recorded once (agent_launches is unique per intent).
import { randomUUID } from 'node:crypto';
import { json, num, str, strOrNull } from '../db/values';
import type { CreationPlan } from '../domain/creation/plan';
import { stableId } from '../domain/creation/stable-id';
import type { Services } from '../services';
import { profileFromRow, runnerFor } from './agent-runners';

const MAX_LAUNCH_ATTEMPTS = 5;

function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

/**
 * Promotes waiting deferred intents whose blockers are all done: prepares the session and makes the intent
 * pending. A blocker that was deleted no longer blocks.
 */
export async function promoteDeferred(services: Services): Promise<number> {
  const { db } = services;
  const waiting = await db.query<Record<string, unknown>>(
    `SELECT li.id, li.blocked_by, li.workspace_id, li.task_id, li.profile_id FROM launch_intents li
     JOIN tasks t ON t.id = li.task_id
     WHERE li.state = 'waiting' AND t.creation_state = 'completed'`,
  );
  let promoted = 0;
  for (const intent of waiting) {
    const blockers = json<string[]>(intent.blocked_by);
    const open = blockers.length
      ? await db.one<{ n: unknown }>(
          `SELECT COUNT(*) AS n FROM tasks t JOIN workflow_steps s ON s.id = t.step_id
           WHERE s.is_done = $1 AND t.id IN (${placeholders(2, blockers.length)})`,
          [false, ...blockers],
        )
      : { n: 0 };
    if (num(open?.n ?? 0) > 0) continue;
    const id = str(intent.id);
    const sessionId = stableId(id, 'session');
    const at = new Date().toISOString();
    promoted += await db.transaction(async (tx) => {
      const moved = await tx.run("UPDATE launch_intents SET state = 'pending', session_id = $2, updated_at = $3 WHERE id = $1 AND state = 'waiting'", [
        id,
        sessionId,
        at,
      ]);
      if (moved === 0) return 0;
      await tx.run(
        `INSERT INTO agent_sessions (id, workspace_id, task_id, profile_id, operation_id, step_index, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, NULL, NULL, 'prepared', $5, $5) ON CONFLICT DO NOTHING`,
        [sessionId, str(intent.workspace_id), str(intent.task_id), strOrNull(intent.profile_id), at],
      );
      return 1;
    });
  }
  return promoted;
}

/** Launches one intent if this process wins its claim. */
async function launchOne(services: Services, intentId: string): Promise<boolean> {
  const { db } = services;
  const now = new Date();
  const claimed = await db.run(
    `UPDATE launch_intents SET state = 'launching', attempts = attempts + 1, lease_owner = $2, lease_expires_at = $3, updated_at = $4
     WHERE id = $1 AND (state = 'pending' OR (state = 'launching' AND lease_expires_at < $4))`,
    [intentId, services.instanceId, new Date(now.getTime() + services.leaseMs).toISOString(), now.toISOString()],
  );
  if (claimed === 0) return false;
  const row = await db.one<Record<string, unknown>>(
    `SELECT li.id, li.session_id, li.task_id, li.workspace_id, li.attempts, t.identifier, t.title,
            p.id AS p_id, p.name AS p_name, p.runner AS p_runner, p.config AS p_config
     FROM launch_intents li JOIN tasks t ON t.id = li.task_id LEFT JOIN agent_profiles p ON p.id = li.profile_id
     WHERE li.id = $1`,
    [intentId],
  );
  if (!row) return false;
  const profile = row.p_id
    ? profileFromRow({ id: row.p_id, name: row.p_name, runner: row.p_runner, config: row.p_config })
    : null;
  const runner = runnerFor(profile?.runner ?? null);
  try {
    const detail = await runner.launch({
      intentId,
      sessionId: str(row.session_id),
      taskId: str(row.task_id),
      workspaceId: str(row.workspace_id),
      identifier: str(row.identifier),
      title: str(row.title),
      profile,
    });
    const at = new Date().toISOString();
    await db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO agent_launches (id, intent_id, session_id, task_id, runner, detail, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [randomUUID(), intentId, str(row.session_id), str(row.task_id), runner.name, JSON.stringify(detail ?? {}), at],
      );
      await tx.run("UPDATE agent_sessions SET state = 'running', started_at = COALESCE(started_at, $2), updated_at = $2 WHERE id = $1", [
        str(row.session_id),
        at,
      ]);
      await tx.run(
        "UPDATE launch_intents SET state = 'launched', launched_at = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $2 WHERE id = $1",
        [intentId, at],
      );
    });
    return true;
  } catch (err) {
    // Best effort (SPEC §5): a failed launch never changes the creation's outcome; it is retried a few times.
    const failed = num(row.attempts) >= MAX_LAUNCH_ATTEMPTS;
    await db.run(
      'UPDATE launch_intents SET state = $2, last_error = $3, lease_owner = NULL, lease_expires_at = NULL, updated_at = $4 WHERE id = $1',
      [intentId, failed ? 'failed' : 'pending', (err as Error).message, new Date().toISOString()],
    );
    return false;
  }
}

/** One dispatch pass: promote deferred intents, then launch every launchable one. Returns launches made. */
export async function dispatchLaunches(services: Services): Promise<number> {
  await promoteDeferred(services);
  const due = await services.db.query<{ id: unknown }>(
    `SELECT li.id FROM launch_intents li JOIN tasks t ON t.id = li.task_id
     WHERE t.creation_state = 'completed' AND (li.state = 'pending' OR (li.state = 'launching' AND li.lease_expires_at < $1))
     ORDER BY li.created_at LIMIT 100`,
    [new Date().toISOString()],
  );
  let launched = 0;
  for (const r of due) if (await launchOne(services, str(r.id))) launched++;
  return launched;
}

/**
 * Called right after a successful Complete (never before): starts a dispatch pass without making the caller
 * wait. Creates with nothing to launch skip it, keeping the plain create path free of extra queries. The
 * recovery runtime's poll picks up anything this pass misses.
 */
export function dispatchAfterComplete(services: Services, plan: Pick<CreationPlan, 'startPolicy'>): void {
  if (plan.startPolicy !== 'immediate') return;
  setImmediate(() => {
    dispatchLaunches(services).catch((err: unknown) => console.error('agent dispatch failed:', (err as Error).message));
  });
}
