// The console's operations and releases lists (SPEC §13): "lists are paged with a total and filterable (operations by
// state, external-id prefix and time; releases by reason and actor); nothing is silently cut off". Newest first, in
// keyset pages (a page costs the same on the last page of a million rows as on the first); every page says how many
// rows match in all and where it starts among them. The cursors are opaque strings the page keeps in its URL.
import { z } from 'zod';
import type { Actor } from '../access';
import type { ReleaseListRow } from '../../db/repositories/console';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { normalizePrefix } from './browse';
import type { TOperationsInput, TReleasesInput } from './list-inputs';
import {
  requireRead,
  type ConsoleActor,
  type ListCursor,
  type ListPage,
  type OperationsQuery,
  type ReleasesQuery,
} from './rows';

/** Totals are counted this far; beyond it the page says "more than 100,000" (the count reads an index range). */
export const LIST_COUNT_CAP = 100_000;

const ZCursor = z.tuple([z.string().min(1), z.string().min(1)]);

export function encodeListCursor(c: ListCursor): string {
  return Buffer.from(JSON.stringify([c.at, c.id]), 'utf8').toString('base64url');
}

function decodeListCursor(text: string): ListCursor {
  try {
    const [at, id] = ZCursor.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
    if (Number.isNaN(Date.parse(at))) throw new Error('not a time');
    return { at, id };
  } catch {
    throw new DomainError('validation_failed', 'cursor: not a cursor of this list; start from the first page');
  }
}

function pageOf(input: { cursor?: string | null; direction: 'after' | 'before'; limit: number }): ListPage {
  return {
    cursor: input.cursor ? decodeListCursor(input.cursor) : null,
    backwards: input.direction === 'before' && !!input.cursor,
    limit: input.limit,
  };
}

const instant = (v: string | null | undefined) => (v ? new Date(v).toISOString() : null);
const blankToNull = (v: string | null | undefined) =>
  v === null || v === undefined || v.trim() === '' ? null : v.trim();

/** An operation id, whole or its first characters: what the console shows (8) is enough. */
const OPERATION_ID = /^[0-9a-f-]{4,36}$/;

export function operationsQuery(input: TOperationsInput): OperationsQuery {
  const q = blankToNull(input.q);
  return {
    workspaceId: input.workspace_id,
    state: input.state ?? null,
    prefix: normalizePrefix(input.prefix ?? null),
    from: instant(input.from),
    before: instant(input.before),
    idPrefix: q !== null && OPERATION_ID.test(q.toLowerCase()) ? q.toLowerCase() : null,
    requestId: q,
  };
}

export function releasesQuery(input: TReleasesInput): ReleasesQuery {
  const text = blankToNull(input.reason_text);
  return {
    workspaceId: input.workspace_id,
    result: input.result ?? null,
    actorId: input.actor_id ?? null,
    reason: text !== null ? { kind: 'containing', text } : input.reason === 'any' ? null : { kind: input.reason },
    prefix: normalizePrefix(input.prefix ?? null),
    from: instant(input.from),
    before: instant(input.before),
    search: blankToNull(input.q),
  };
}

/** What every list page says besides its rows: the total, where it starts, and the cursors either side. */
async function paged<Row extends { id: string; created_at: string }>(
  page: ListPage,
  read: { rows: Row[]; more: boolean },
  count: (cap: number, newerThan?: ListCursor) => Promise<number>,
) {
  const { rows, more } = read;
  const first = rows[0];
  const last = rows.at(-1);
  const [total, before] = await Promise.all([
    count(LIST_COUNT_CAP + 1),
    first ? count(LIST_COUNT_CAP + 1, { at: first.created_at, id: first.id }) : 0,
  ]);
  const olderFollow = page.backwards ? page.cursor !== null : more;
  const newerFollow = page.backwards ? more : page.cursor !== null;
  return {
    rows,
    total: Math.min(total, LIST_COUNT_CAP),
    total_capped: total > LIST_COUNT_CAP,
    /** The first row's place among all that match (1 for the newest); 0 without rows. */
    first_position: first ? before + 1 : 0,
    next_cursor: olderFollow && last ? encodeListCursor({ at: last.created_at, id: last.id }) : null,
    prev_cursor: newerFollow && first ? encodeListCursor({ at: first.created_at, id: first.id }) : null,
  };
}

/** The workspace's creation operations, newest first, one page. */
export async function listOperations(store: Pick<Repositories, 'console'>, actor: Actor, input: TOperationsInput) {
  requireRead(actor, input.workspace_id);
  const q = operationsQuery(input);
  const page = pageOf(input);
  const read = await store.console.operationsPage(q, page);
  return {
    ...(await paged(page, read, (cap, newer) => store.console.countOperations(q, cap, newer))),
    prefix: q.prefix,
  };
}

const unknownActor = (id: string): ConsoleActor => ({ id, kind: 'unknown', label: id.slice(0, 8) });

/** Releases as the console shows them: who (named), the result, and the replays and key conflicts each met. */
export async function describeReleases(
  store: Pick<Repositories, 'console'>,
  releases: ReleaseListRow[],
  alsoName: readonly string[] = [],
) {
  const attempts = await store.console.releaseAttempts(releases.map((r) => r.id));
  const actors = await store.console.actors([
    ...releases.map((r) => r.actorId),
    ...attempts.map((a) => a.actorId),
    ...alsoName,
  ]);
  const who = (id: string) => actors.get(id) ?? unknownActor(id);
  const rows = releases.map((r) => ({
    id: r.id,
    idempotency_key: r.idempotencyKey,
    actor: who(r.actorId),
    source: r.source,
    external_id: r.externalId,
    holder_task_id: r.holderTaskId,
    holder_identifier: r.holderIdentifier,
    result: r.resultStatus === 204 ? ('released' as const) : ('nothing_held_it' as const),
    reason: r.reason,
    request_id: r.requestId,
    created_at: r.createdAt,
    attempts: attempts
      .filter((a) => a.releaseId === r.id)
      .map((a) => ({
        kind: a.kind,
        at: a.createdAt,
        actor: who(a.actorId),
        source: a.source,
        external_id: a.externalId,
        request_id: a.requestId,
      })),
  }));
  return { rows, who };
}

/** The workspace's releases, newest first, one page — each with the replays and key conflicts it met. */
export async function listReleases(store: Pick<Repositories, 'console'>, actor: Actor, input: TReleasesInput) {
  requireRead(actor, input.workspace_id);
  const q = releasesQuery(input);
  const page = pageOf(input);
  const read = await store.console.releasesPage(q, page);
  const actorIds = await store.console.releaseActorIds(input.workspace_id);
  const { rows, who } = await describeReleases(store, read.rows, actorIds);
  return {
    ...(await paged(page, { rows, more: read.more }, (cap, newer) => store.console.countReleases(q, cap, newer))),
    prefix: q.prefix,
    /** Everyone who has released in this workspace (the actor filter's choices). */
    actors: actorIds.map(who).sort((a, b) => a.label.localeCompare(b.label)),
  };
}
