// The workspace overview (SPEC §13): counts, creates by outcome over the last 24 hours, recent events.
import type { Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { json, num, str } from '../../db/values';
import { requireRead, toEvent } from './rows';

const HOUR = 3_600_000;
export type CreateOutcomeBucket = 'created' | 'identity_lost' | 'aborted' | 'in_flight';

async function count(sql: Sql, text: string, params: unknown[]): Promise<number> {
  const row = await sql.one<{ n: unknown }>(text, params);
  return num(row?.n ?? 0);
}

function bucketOf(state: string, outcome: unknown): CreateOutcomeBucket {
  if (state === 'aborted') return 'aborted';
  if (state !== 'completed') return 'in_flight';
  try {
    return json<{ kind?: string }>(outcome)?.kind === 'created_identity_lost' ? 'identity_lost' : 'created';
  } catch {
    return 'created';
  }
}

export async function readOverview(sql: Sql, actor: Actor, workspaceId: string, now = new Date()) {
  requireRead(actor, workspaceId);
  const dayAgo = new Date(now.getTime() - 24 * HOUR).toISOString();
  const [tasks, archived, unsettled, inFlight, releases, released] = await Promise.all([
    count(sql, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [workspaceId]),
    count(sql, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND archived_at IS NOT NULL', [workspaceId]),
    count(sql, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id IS NOT NULL AND external_id_settled_at IS NULL', [workspaceId]),
    count(sql, "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state IN ('preparing', 'completing', 'aborting')", [workspaceId]),
    count(sql, 'SELECT COUNT(*) AS n FROM release_operations WHERE workspace_id = $1 AND created_at >= $2', [workspaceId, dayAgo]),
    count(sql, 'SELECT COUNT(*) AS n FROM release_operations WHERE workspace_id = $1 AND created_at >= $2 AND result_status = 204', [workspaceId, dayAgo]),
  ]);

  // 24 hourly buckets ending with the current hour; bucketed here so the SQL stays the same in both dialects.
  const end = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  const start = end - 24 * HOUR;
  const hours = Array.from({ length: 24 }, (_, i) => ({
    start: new Date(start + i * HOUR).toISOString(),
    created: 0,
    identity_lost: 0,
    aborted: 0,
    in_flight: 0,
  }));
  const ops = await sql.query<{ created_at: unknown; state: unknown; outcome: unknown }>(
    'SELECT created_at, state, outcome FROM creation_operations WHERE workspace_id = $1 AND created_at >= $2 ORDER BY created_at LIMIT 20000',
    [workspaceId, new Date(start).toISOString()],
  );
  for (const op of ops) {
    const i = Math.floor((Date.parse(str(op.created_at)) - start) / HOUR);
    const h = hours[i];
    if (h) h[bucketOf(str(op.state), op.outcome)]++;
  }

  const events = await sql.query('SELECT seq, id, task_id, type, revision, payload, created_at FROM outbox_events WHERE workspace_id = $1 ORDER BY seq DESC LIMIT 10', [
    workspaceId,
  ]);
  return {
    counts: { tasks, archived, unsettled, creations_in_flight: inFlight, releases_24h: releases, released_24h: released },
    creates_by_hour: hours,
    recent_events: events.map(toEvent),
  };
}
