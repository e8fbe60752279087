// The workspace overview (SPEC §13): counts, creates by outcome over the last 24 hours, recent events.
import type { Actor } from '../../auth/actor';
import type { Repositories } from '../../db/store';
import { requireRead } from './rows';

const HOUR = 3_600_000;
export type CreateOutcomeBucket = 'created' | 'identity_lost' | 'aborted' | 'in_flight';

function bucketOf(state: string, outcome: string | null): CreateOutcomeBucket {
  if (state === 'aborted') return 'aborted';
  if (state !== 'completed') return 'in_flight';
  return outcome === 'created_identity_lost' ? 'identity_lost' : 'created';
}

export async function readOverview(store: Pick<Repositories, 'console'>, actor: Actor, workspaceId: string, now = new Date()) {
  requireRead(actor, workspaceId);
  const dayAgo = new Date(now.getTime() - 24 * HOUR).toISOString();
  const counts = await store.console.overviewCounts(workspaceId, dayAgo);

  // 24 hourly buckets ending with the current hour; bucketed here so the query stays the same in both dialects.
  const end = Math.floor(now.getTime() / HOUR) * HOUR + HOUR;
  const start = end - 24 * HOUR;
  const hours = Array.from({ length: 24 }, (_, i) => ({
    start: new Date(start + i * HOUR).toISOString(),
    created: 0,
    identity_lost: 0,
    aborted: 0,
    in_flight: 0,
  }));
  for (const op of await store.console.createsSince(workspaceId, new Date(start).toISOString(), 20_000)) {
    const h = hours[Math.floor((Date.parse(op.createdAt) - start) / HOUR)];
    if (h) h[bucketOf(op.state, op.outcome)]++;
  }

  return { counts, creates_by_hour: hours, recent_events: await store.console.recentEvents(workspaceId, 10) };
}
