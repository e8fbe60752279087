// The console's task browser (SPEC §13) as SQL written once for both dialects: filters, a sort, and keyset
// pages. Built here, run by IdentityRepository.browse; exported so a test can EXPLAIN exactly what runs.
//
// The external-id prefix is a byte range, `external_id >= p AND external_id < next(p)` — not LIKE, whose meaning and
// index use depend on collation and case-sensitivity settings. With the column's binary collation (SPEC §2.2: `"C"`,
// BINARY) the range is exactly "starts with p" and is a range scan of uniq_tasks_external_id on both dialects. Sorted
// by external id, the page comes out of that index in order: a page costs `limit` rows, whatever the workspace size.
import type { BrowseCursor, BrowseQuery } from '../../domain/console/rows';

/** The smallest string greater than every string that starts with `prefix`, in code point (= UTF-8 byte) order;
 *  `undefined` when there is none (every code point is U+10FFFF). */
export function prefixUpperBound(prefix: string): string | undefined {
  const cps = [...prefix].map((c) => c.codePointAt(0)!);
  while (cps.length > 0) {
    const last = cps.pop()!;
    if (last < 0x10ffff) {
      // Surrogates are not characters: the next code point after U+D7FF is U+E000.
      cps.push(last === 0xd7ff ? 0xe000 : last + 1);
      return String.fromCodePoint(...cps);
    }
  }
  return undefined;
}

export interface Statement {
  text: string;
  params: unknown[];
}

export const BROWSE_COLUMNS = `t.id, t.workspace_id, t.number, t.identifier, t.title, t.external_id, t.external_id_settled_at, t.creation_state,
  t.archived_at, t.created_at, t.updated_at, t.revision, t.step_id, s.name AS step_name, s.position AS step_position`;

/** The sort key's column; ties (where the key is not unique) fall back to the task number in the same direction. */
const KEY: Record<BrowseQuery['sort'], string> = {
  external_id: 't.external_id',
  identifier: 't.number',
  created_at: 't.created_at',
  title: 't.title',
  step: 's.position',
};

/**
 * A sort runs over one or two segments, read in order. Sorting by external id puts the tasks holding one first (in
 * index order; the key is unique in the workspace, so it needs no tie-break) and the tasks without one last, newest
 * first, in both directions. Every other key is NOT NULL: one segment.
 */
export type Segment = 'held' | 'none' | 'all';

export function segmentsOf(q: BrowseQuery): Segment[] {
  if (q.sort !== 'external_id') return ['all'];
  const held = q.prefix !== null || q.settlement === 'settled' || q.settlement === 'unsettled';
  if (held) return ['held'];
  if (q.settlement === 'none') return ['none'];
  return ['held', 'none'];
}

/** Code point order = UTF-8 byte order, the column's binary collation (JS `<` compares UTF-16 units instead). */
function compareIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A keyset bound on the external id: the rows after (`>`) or before (`<`) a cursor's id. */
interface IdBound {
  op: '>' | '<';
  key: string;
}

function filters(q: BrowseQuery, params: unknown[], after?: IdBound): string[] {
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const where = [`t.workspace_id = ${p(q.workspaceId)}`];
  // The prefix range and a cursor are folded into ONE lower and ONE upper bound: given two lower bounds SQLite's
  // planner may leave the range and sort (seen with EXPLAIN QUERY PLAN), so the tighter one is chosen here.
  let lower = q.prefix === null ? undefined : { op: '>=', key: q.prefix };
  const upperKey = q.prefix === null ? undefined : prefixUpperBound(q.prefix);
  let upper = upperKey === undefined ? undefined : { op: '<', key: upperKey };
  if (after?.op === '>' && (lower === undefined || compareIds(after.key, lower.key) >= 0)) lower = after;
  if (after?.op === '<' && (upper === undefined || compareIds(after.key, upper.key) <= 0)) upper = after;
  if (lower) where.push(`t.external_id ${lower.op} ${p(lower.key)}`);
  if (upper) where.push(`t.external_id ${upper.op} ${p(upper.key)}`);
  if (q.settlement === 'settled') where.push('t.external_id IS NOT NULL AND t.external_id_settled_at IS NOT NULL');
  if (q.settlement === 'unsettled') where.push('t.external_id IS NOT NULL AND t.external_id_settled_at IS NULL');
  if (q.settlement === 'none') where.push('t.external_id IS NULL');
  if (q.archived === 'exclude') where.push('t.archived_at IS NULL');
  if (q.archived === 'only') where.push('t.archived_at IS NOT NULL');
  if (q.stepId !== null) where.push(`t.step_id = ${p(q.stepId)}`);
  if (q.createdFrom !== null) where.push(`t.created_at >= ${p(q.createdFrom)}`);
  if (q.createdBefore !== null) where.push(`t.created_at < ${p(q.createdBefore)}`);
  return where;
}

/**
 * One segment's page statement. `backwards` reads towards the start (the page before `cursor`), in reverse order;
 * `cursor` is a row of this segment (or null: from the segment's start, or its end when reading backwards).
 */
export function segmentStatement(
  q: BrowseQuery,
  segment: Segment,
  cursor: BrowseCursor | null,
  backwards: boolean,
  limit: number,
): Statement {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Reading backwards flips every comparison and the order; the caller reverses the rows.
  const asc = (q.dir === 'asc') !== backwards;
  const [gt, dir] = asc ? (['>', 'ASC'] as const) : (['<', 'DESC'] as const);
  const idBound =
    segment === 'held' && cursor && typeof cursor.key === 'string' ? { op: gt, key: cursor.key } : undefined;
  const where = filters(q, params, idBound);
  let order: string;
  if (segment === 'held') {
    // A lower bound already excludes NULL; saying it again made SQLite's STAT4 estimates pick a skip-scan and a sort
    // for some workspace ids (browse-plan.test.ts failed about three runs in four before this).
    if (q.prefix === null && idBound?.op !== '>') where.push('t.external_id IS NOT NULL');
    order = `t.external_id ${dir}`;
  } else if (segment === 'none') {
    // Without an identity: newest first in both directions of the sort.
    where.push('t.external_id IS NULL');
    const [ngt, ndir] = backwards ? ['>', 'ASC'] : ['<', 'DESC'];
    if (cursor) where.push(`t.number ${ngt} ${p(cursor.number)}`);
    order = `t.number ${ndir}`;
  } else {
    const key = KEY[q.sort];
    if (cursor && q.sort === 'identifier') where.push(`t.number ${gt} ${p(cursor.number)}`);
    else if (cursor) {
      // `key >= k` alone can bound an index range; the OR then skips the rows of the same key already shown.
      const k = p(cursor.key);
      where.push(`${key} ${gt}= ${k} AND (${key} ${gt} ${k} OR t.number ${gt} ${p(cursor.number)})`);
    }
    order = q.sort === 'identifier' ? `t.number ${dir}` : `${key} ${dir}, t.number ${dir}`;
  }
  return {
    text: `SELECT ${BROWSE_COLUMNS} FROM tasks t JOIN workflow_steps s ON s.id = t.step_id WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${p(limit)}`,
    params,
  };
}

/** How many tasks match, counted up to `cap` (so a broad filter on a huge workspace stays cheap). */
export function countStatement(q: BrowseQuery, cap: number): Statement {
  const params: unknown[] = [];
  const where = filters(q, params);
  params.push(cap);
  return {
    text: `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tasks t WHERE ${where.join(' AND ')} LIMIT $${params.length}) capped`,
    params,
  };
}
