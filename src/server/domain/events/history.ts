// SPEC §9: event history (cursor pagination over the outbox `seq`) and each task's revision history.
import { can, type Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { json, num, str, strOrNull } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { validationError } from '../tasks/create-input';
import { MAX_EVENT_PAGE, ZEventPageParams } from './page-params';
import { settledHighWater } from './horizon';
import { runningHub } from './hub';
import { EVENT_COLUMNS, toEventRecord, type EventRecord } from './outbox';
import type { TaskBody } from '../tasks/task';

export const MAX_PAGE = MAX_EVENT_PAGE;

/** Events with after < seq <= upTo (optionally of one workspace), in seq order. */
export async function readEvents(
  sql: Sql,
  q: { workspaceId?: string; after: number; upTo: number; limit: number },
): Promise<EventRecord[]> {
  if (q.upTo <= q.after) return [];
  const limit = Math.max(1, Math.min(MAX_PAGE, Math.floor(q.limit)));
  const rows = q.workspaceId
    ? await sql.query<{ seq: unknown; payload: unknown }>(
        `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE workspace_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT ${limit}`,
        [q.workspaceId, q.after, q.upTo],
      )
    : await sql.query<{ seq: unknown; payload: unknown }>(
        `SELECT ${EVENT_COLUMNS} FROM outbox_events WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT ${limit}`,
        [q.after, q.upTo],
      );
  return rows.map(toEventRecord);
}

/**
 * The seq up to which every event is final. The relay's bound lags by up to a poll interval, so a reader who just
 * wrote would not see their own event; a one-shot horizon (one statement when nothing is in flight) closes that.
 */
export async function finalSeq(services: Services): Promise<number> {
  const relay = runningHub(services)?.safe ?? 0;
  return Math.max(relay, await settledHighWater(services.db));
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
  // The surfaces parse with this schema already; a direct caller is held to the same rule (issue 18: `limit=0`
  // reached the page arithmetic below and failed on an empty page).
  const parsed = ZEventPageParams.safeParse({ after: input.after, limit: input.limit });
  if (!parsed.success) throw validationError(parsed.error);
  const after = parsed.data.after ?? 0;
  const upTo = await finalSeq(services);
  const limit = parsed.data.limit ?? 100;
  const events = await readEvents(services.db, { workspaceId: input.workspaceId, after, upTo, limit });
  // A full page continues after its last event; a short page has seen everything up to the final bound.
  const next = events.length >= Math.min(limit, MAX_PAGE) ? events.at(-1)!.seq : Math.max(after, upTo);
  return { events, next_after: next };
}

export interface RevisionBody {
  task_id: string;
  workspace_id: string;
  revision: number;
  change: string;
  actor_id: string | null;
  created_at: string;
  task: TaskBody;
}

/** `task.revisions` (via `event.revisions`) and `GET /tasks/:id/revisions`: retained also after delete. */
export async function listRevisions(services: Services, actor: Actor, taskId: string): Promise<RevisionBody[]> {
  const rows = await services.db.query<Record<string, unknown>>(
    'SELECT task_id, revision, workspace_id, change, actor_id, snapshot, created_at FROM task_revisions WHERE task_id = $1 ORDER BY revision',
    [taskId],
  );
  if (rows.length === 0 || !can(actor, str(rows[0]!.workspace_id), 'read')) throw new DomainError('task_not_found');
  return rows.map((r) => ({
    task_id: str(r.task_id),
    workspace_id: str(r.workspace_id),
    revision: num(r.revision),
    change: str(r.change),
    actor_id: strOrNull(r.actor_id),
    created_at: str(r.created_at),
    task: json<TaskBody>(r.snapshot),
  }));
}
