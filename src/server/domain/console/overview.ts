// The workspace overview (SPEC §13): counts, creates by outcome over the last 24 hours, recent events.
import type { Actor } from '../access';
import type { Repositories } from '../../db/store';
import { requireRead } from './rows';

const HOUR = 3_600_000;
export type CreateOutcomeBucket = 'created' | 'identity_lost' | 'aborted' | 'in_flight';

function bucketOf(state: string, outcome: string | null): CreateOutcomeBucket {
  if (state === 'aborted') return 'aborted';
  if (state !== 'completed') return 'in_flight';
  return outcome === 'created_identity_lost' ? 'identity_lost' : 'created';
}

export async function readOverview(
  store: Pick<Repositories, 'console'>,
  actor: Actor,
  workspaceId: string,
  now = new Date(),
) {
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

/** At most this many namespaces are listed by name; the rest are summed into one row (`other: true`). */
export const NAMESPACES_LISTED = 12;

/**
 * Counts per id namespace — the part of an external id before its first `:` (`jira`, `gh`, `gmail`) — so an operator
 * sees which integration creates unsettled or released work: tasks holding an id in it, how many are unsettled, and
 * the creates (aborted among them) and releases of the last 24 hours. Busiest first; ids without a `:` form one row.
 */
export async function readNamespaces(
  store: Pick<Repositories, 'console'>,
  actor: Actor,
  workspaceId: string,
  now = new Date(),
) {
  requireRead(actor, workspaceId);
  const dayAgo = new Date(now.getTime() - 24 * HOUR).toISOString();
  const rows = (await store.console.namespaces(workspaceId, dayAgo)).sort(
    (a, b) =>
      b.unsettled - a.unsettled ||
      b.held + b.creates + b.releases - (a.held + a.creates + a.releases) ||
      String(a.namespace).localeCompare(String(b.namespace)),
  );
  const listed = rows.slice(0, NAMESPACES_LISTED).map((r) => ({ ...r, other: false }));
  const rest = rows.slice(NAMESPACES_LISTED);
  if (rest.length === 0) return listed;
  const sum = (k: 'held' | 'unsettled' | 'creates' | 'aborted' | 'releases' | 'released') =>
    rest.reduce((n, r) => n + r[k], 0);
  return [
    ...listed,
    {
      namespace: null,
      other: true,
      held: sum('held'),
      unsettled: sum('unsettled'),
      creates: sum('creates'),
      aborted: sum('aborted'),
      releases: sum('releases'),
      released: sum('released'),
    },
  ];
}
