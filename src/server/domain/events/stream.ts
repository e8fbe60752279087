// SPEC §9: a live subscriber's stream — the tRPC subscription and the REST SSE stream both iterate this.
// Resume: `after` is the last seq the subscriber saw (SSE `Last-Event-ID`); every later event of the workspace is
// yielded once, in seq order (so in revision order per task), first from history, then live. A new subscriber
// without `after` starts at the relay's current bound ("from now").
import { can, type Actor } from '../access';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { readEvents, MAX_PAGE } from './history';
import type { EventRecord } from '../../model/events';

/** Authorizes first (so a REST caller gets its 404 or 503 before the stream starts), then returns the stream. */
export function openEventStream(
  services: Services,
  actor: Actor,
  workspaceId: string,
  after: number | undefined,
  signal: AbortSignal,
): AsyncGenerator<EventRecord> {
  if (!can(actor, workspaceId, 'read')) throw new DomainError('not_found');
  // The relay cannot read the outbox (the database is unavailable): a stream opened now would only wait. A stream
  // already open waits for the relay and resumes on its own; a client that reconnects resumes from its last id.
  if (services.hub.databaseUnavailable) throw new DomainError('database_unavailable');
  return streamEvents(services, workspaceId, after, signal);
}

async function* streamEvents(
  services: Services,
  workspaceId: string,
  after: number | undefined,
  signal: AbortSignal,
): AsyncGenerator<EventRecord> {
  const hub = services.hub;
  while (hub.safe === undefined && !signal.aborted && !hub.stopped) await hub.next(signal);
  // `pos`: every event with seq <= pos has been yielded or is not this workspace's. It only grows, so no event
  // reaches one connection twice.
  let pos = after ?? hub.safe ?? 0;
  while (!signal.aborted && !hub.stopped) {
    const safe = hub.safe ?? 0;
    if (pos >= safe) {
      await hub.next(signal);
      continue;
    }
    const last = hub.last;
    let events: EventRecord[];
    let reached: number;
    if (last && last.from === pos && last.to === safe) {
      // Caught up: this advance is already in memory.
      events = last.events.filter((e) => e.workspace_id === workspaceId);
      reached = safe;
    } else {
      events = await readEvents(services, { workspaceId, after: pos, upTo: safe, limit: MAX_PAGE });
      reached = events.length === MAX_PAGE ? events.at(-1)!.seq : safe;
    }
    for (const e of events) {
      if (signal.aborted) return;
      yield e;
      pos = e.seq;
    }
    pos = reached;
  }
}
