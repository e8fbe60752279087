// SPEC §9: event history (cursor pagination over the outbox `seq`) and each task's revision history.
import { can, type Actor } from '../access';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { validationError } from '../tasks/create-input';
import { MAX_EVENT_PAGE, ZEventPageParams } from './page-params';
import { settledHighWater } from './horizon';
import { runningHub } from './hub';
import type { EventRecord, RevisionBody } from '../../model/events';

export type { RevisionBody };

export const MAX_PAGE = MAX_EVENT_PAGE;

/** Events with after < seq <= upTo (optionally of one workspace), in seq order, at most MAX_PAGE. */
export async function readEvents(
  services: Pick<Services, 'store'>,
  q: { workspaceId?: string; after: number; upTo: number; limit: number },
): Promise<EventRecord[]> {
  if (q.upTo <= q.after) return [];
  return services.store.events.listEvents({ ...q, limit: Math.max(1, Math.min(MAX_PAGE, Math.floor(q.limit))) });
}

/**
 * The seq up to which every event is final. The relay's bound lags by up to a poll interval, so a reader who just
 * wrote would not see their own event; a one-shot horizon (one statement when nothing is in flight) closes that.
 */
export async function finalSeq(services: Services): Promise<number> {
  const relay = runningHub(services.hub)?.safe ?? 0;
  return Math.max(relay, await settledHighWater(services.store.events));
}

export interface EventPage {
  events: EventRecord[];
  /** Pass as `after` to continue. Stable: no event that later commits can appear at or below it. */
  next_after: number;
}

/** `event.list` / `GET /workspaces/:id/events?after=&limit=`. Unauthorized and missing look the same (SPEC §11). */
export async function listEvents(
  services: Services,
  actor: Actor,
  input: { workspaceId: string; after?: number; limit?: number },
): Promise<EventPage> {
  if (!can(actor, input.workspaceId, 'read')) throw new DomainError('not_found');
  // The surfaces parse with this schema already; a direct caller is held to the same rule (`limit=0` would reach the
  // page arithmetic below and fail on an empty page).
  const parsed = ZEventPageParams.safeParse({ after: input.after, limit: input.limit });
  if (!parsed.success) throw validationError(parsed.error);
  const after = parsed.data.after ?? 0;
  const upTo = await finalSeq(services);
  const limit = parsed.data.limit ?? 100;
  const events = await readEvents(services, { workspaceId: input.workspaceId, after, upTo, limit });
  // A full page continues after its last event; a short page has seen everything up to the final bound.
  const next = events.length >= Math.min(limit, MAX_PAGE) ? events.at(-1)!.seq : Math.max(after, upTo);
  return { events, next_after: next };
}

/** `task.revisions` (via `event.revisions`) and `GET /tasks/:id/revisions`: retained also after delete. */
export async function listRevisions(services: Services, actor: Actor, taskId: string): Promise<RevisionBody[]> {
  const revisions = await services.store.events.listRevisions(taskId);
  if (revisions.length === 0 || !can(actor, revisions[0]!.workspace_id, 'read'))
    throw new DomainError('task_not_found');
  return revisions;
}
