// The console's task browser (SPEC §13): browse by external-id prefix, filter (settlement, archived, step, created
// range), sort, and page by keyset — a page costs the same on the millionth row as on the first, and the cursors are
// opaque strings the page keeps in its URL. Exact find stays in tasks.ts.
import { z } from 'zod';
import { readTypedEscapes } from '../../../lib/visible-id';
import type { Actor } from '../access';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { MAX_EXTERNAL_ID_BYTES } from '../identity/normalize';
import type { TTasksInput } from './list-inputs';
import { withLookalikes } from './lookalikes';
import { consoleTask, requireRead, type BrowseCursor, type BrowseQuery } from './rows';

/** A broad filter on a huge workspace is counted only this far ("more than 10,000"). */
export const COUNT_CAP = 10_000;
const DAY = 86_400_000;

export interface BrowseInput extends Omit<BrowseQuery, 'prefix' | 'createdFrom' | 'createdBefore'> {
  /** As typed: leading white space is dropped (no stored id starts with it); typed escapes (`⟦U+XXXX⟧`, `\u…`) are read. */
  prefix: string | null;
  /** UTC days, YYYY-MM-DD, both inclusive. */
  createdFrom: string | null;
  createdTo: string | null;
  cursor: string | null;
  /** `after`: the page after the cursor; `before`: the page before it (Previous). */
  direction: 'after' | 'before';
  limit: number;
}

/** The browser's tRPC (and export) input as the read model takes it. */
export function browseInput(input: TTasksInput): BrowseInput {
  return {
    workspaceId: input.workspace_id,
    prefix: input.prefix ?? null,
    settlement: input.settlement,
    archived: input.archived,
    stepId: input.step_id ?? null,
    createdFrom: input.created_from ?? null,
    createdTo: input.created_to ?? null,
    sort: input.sort,
    dir: input.dir,
    cursor: input.cursor ?? null,
    direction: input.direction,
    limit: input.limit,
  };
}

const ZCursor = z.tuple([
  z.enum(['held', 'none', 'all']),
  z.union([z.string(), z.number(), z.null()]),
  z.number().int(),
  z.string(),
  z.enum(['asc', 'desc']),
]);

function encodeCursor(c: BrowseCursor, q: BrowseQuery): string {
  return Buffer.from(JSON.stringify([c.segment, c.key, c.number, q.sort, q.dir]), 'utf8').toString('base64url');
}

/** A cursor is a position in one sort: used with another sort (an edited URL) it is refused, not misread. */
function decodeCursor(text: string, q: BrowseQuery): BrowseCursor {
  let parsed: z.infer<typeof ZCursor> | undefined;
  try {
    parsed = ZCursor.parse(JSON.parse(Buffer.from(text, 'base64url').toString('utf8')));
  } catch {
    throw new DomainError('validation_failed', 'cursor: not a cursor of this list; start from the first page');
  }
  const [segment, key, number, sort, dir] = parsed;
  if (segment === 'held' && typeof key !== 'string')
    throw new DomainError('validation_failed', 'cursor: not a cursor of this list; start from the first page');
  if (sort !== q.sort || dir !== q.dir)
    throw new DomainError('validation_failed', 'cursor: it belongs to another sort; start from the first page');
  return { segment, key, number };
}

export function normalizePrefix(raw: string | null): string | null {
  if (raw === null) return null;
  if (/[\u0000-\u001f\u007f]/.test(raw))
    throw new DomainError('validation_failed', 'prefix: control characters are not allowed');
  if (!raw.isWellFormed()) throw new DomainError('validation_failed', 'prefix: must be well-formed Unicode');
  const prefix = raw.replace(/^\p{White_Space}+/u, '');
  if (Buffer.byteLength(prefix, 'utf8') > MAX_EXTERNAL_ID_BYTES)
    throw new DomainError('validation_failed', `prefix: must be ${MAX_EXTERNAL_ID_BYTES} UTF-8 bytes or fewer`);
  if (prefix === '') return null;
  // SPEC §13: what the console shows is accepted — a prefix typed as shown (`rtl:⟦U+202E⟧`, or `<U+202E>`, `\u202E`)
  // means the real characters.
  return readTypedEscapes(prefix) ?? prefix;
}

function dayStart(day: string | null, field: string, plusDays = 0): string | null {
  if (day === null) return null;
  const t = Date.parse(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(t))
    throw new DomainError('validation_failed', `${field}: must be a date (YYYY-MM-DD)`);
  return new Date(t + plusDays * DAY).toISOString();
}

export async function browseTasks(store: Pick<Repositories, 'identities'>, actor: Actor, input: BrowseInput) {
  requireRead(actor, input.workspaceId);
  const q: BrowseQuery = {
    workspaceId: input.workspaceId,
    prefix: normalizePrefix(input.prefix),
    settlement: input.settlement,
    archived: input.archived,
    stepId: input.stepId,
    createdFrom: dayStart(input.createdFrom, 'created_from'),
    createdBefore: dayStart(input.createdTo, 'created_to', 1),
    sort: input.sort,
    dir: input.dir,
  };
  const cursor = input.cursor ? decodeCursor(input.cursor, q) : null;
  const [page, matching] = await Promise.all([
    store.identities.browse(q, { cursor, backwards: input.direction === 'before', limit: input.limit }),
    store.identities.countMatching(q, COUNT_CAP + 1),
  ]);
  const first = page.rows[0];
  const last = page.rows.at(-1);
  return {
    /** The prefix actually searched for (after dropping leading white space and reading a visible form). */
    prefix: q.prefix,
    rows: await withLookalikes(
      store,
      input.workspaceId,
      page.rows.map((r) => consoleTask(r.task)),
    ),
    prev_cursor: page.before && first ? encodeCursor(first.cursor, q) : null,
    next_cursor: page.after && last ? encodeCursor(last.cursor, q) : null,
    matching: Math.min(matching, COUNT_CAP),
    matching_capped: matching > COUNT_CAP,
  };
}
