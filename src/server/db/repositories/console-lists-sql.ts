// The console's operations and releases lists (SPEC §13: "paged with a total and filterable; nothing is silently cut
// off") as SQL written once for both dialects. Built here, run by ConsoleRepository; exported so a test can EXPLAIN
// exactly what runs.
//
// Both lists are newest first, paged by keyset on (created_at, id): a page reads `limit` rows from the workspace's
// (workspace_id, created_at) index whatever page it is, and rows created in the same instant are ordered by id. The
// cursor bound is written `created_at <= c AND (created_at < c OR id < i)`: the first half bounds the index range, the
// second skips the rows of the same instant already shown (an OR alone leaves SQLite scanning from the start).
import type { SqlDialect } from '../drivers';
import type { ListCursor, ListPage, OperationsQuery, ReleasesQuery } from '../../domain/console/rows';
import { prefixUpperBound, type Statement } from './browse-sql';

const OPEN_STATES = "('preparing', 'completing', 'aborting')";

/** Collects parameters and hands out their placeholders. */
class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

/** `column` starts with `prefix`, as a byte range under the column's binary collation (browse-sql.ts says why). */
function startsWith(column: string, prefix: string, p: Params): string {
  const upper = prefixUpperBound(prefix);
  return upper === undefined
    ? `${column} >= ${p.add(prefix)}`
    : `${column} >= ${p.add(prefix)} AND ${column} < ${p.add(upper)}`;
}

/** The keyset bound and order of a newest-first page; `backwards` reads the newer rows before the cursor, oldest first. */
function keyset(
  alias: string,
  cursor: ListCursor | null,
  backwards: boolean,
  p: Params,
): { where: string[]; order: string } {
  const [cmp, dir] = backwards ? ['>', 'ASC'] : ['<', 'DESC'];
  const where: string[] = [];
  if (cursor) {
    const at = p.add(cursor.at);
    where.push(
      `${alias}.created_at ${cmp}= ${at} AND (${alias}.created_at ${cmp} ${at} OR ${alias}.id ${cmp} ${p.add(cursor.id)})`,
    );
  }
  return { where, order: `${alias}.created_at ${dir}, ${alias}.id ${dir}` };
}

/** A count of what matches, up to `cap` (a huge workspace is counted only so far, and says so). */
function capped(table: string, where: string[], cap: number, p: Params): string {
  return `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${table} WHERE ${where.join(' AND ')} LIMIT ${p.add(cap)}) capped`;
}

// ---- creation operations ----------------------------------------------------------------------------------------

export const OPERATION_COLUMNS = `o.id, o.workspace_id, o.task_id, o.actor_id, o.external_id, o.state, o.identity_released, o.generation,
  o.lease_owner, o.lease_expires_at, o.outcome, o.error, o.created_at, o.updated_at, o.finished_at, o.request_id, t.identifier AS task_identifier`;

function operationFilters(q: OperationsQuery, p: Params): string[] {
  const where = [`o.workspace_id = ${p.add(q.workspaceId)}`];
  if (q.state === 'open') where.push(`o.state IN ${OPEN_STATES}`);
  else if (q.state !== null) where.push(`o.state = ${p.add(q.state)}`);
  if (q.prefix !== null) where.push(startsWith('o.external_id', q.prefix, p));
  if (q.from !== null) where.push(`o.created_at >= ${p.add(q.from)}`);
  if (q.before !== null) where.push(`o.created_at < ${p.add(q.before)}`);
  // Search: an operation id (or its start), or a request id — that began it, or one in its history.
  const found: string[] = [];
  // A whole id is a primary-key lookup; its first characters are compared as such (ids have the database's default
  // collation, under which a byte range is not "starts with"; a search's rows are few).
  if (q.idPrefix !== null)
    found.push(
      q.idPrefix.length === 36
        ? `o.id = ${p.add(q.idPrefix)}`
        : `substr(o.id, 1, ${q.idPrefix.length}) = ${p.add(q.idPrefix)}`,
    );
  if (q.requestId !== null) {
    const id = p.add(q.requestId);
    found.push(
      `o.request_id = ${id}`,
      `o.id IN (SELECT h.operation_id FROM creation_history h WHERE h.request_id = ${id})`,
    );
  }
  if (found.length > 0) where.push(`(${found.map((f) => `(${f})`).join(' OR ')})`);
  return where;
}

/** One page of operations (`limit` rows plus one, to learn whether more follow), with the task's identifier. */
export function operationsPageStatement(q: OperationsQuery, page: ListPage): Statement {
  const p = new Params();
  const where = operationFilters(q, p);
  const k = keyset('o', page.cursor, page.backwards, p);
  return {
    text: `SELECT ${OPERATION_COLUMNS} FROM creation_operations o LEFT JOIN tasks t ON t.id = o.task_id
      WHERE ${[...where, ...k.where].join(' AND ')} ORDER BY ${k.order} LIMIT ${p.add(page.limit + 1)}`,
    params: p.values,
  };
}

/** How many operations match (up to `cap`); with `newerThan`, only those listed before that row (its position). */
export function operationsCountStatement(q: OperationsQuery, cap: number, newerThan?: ListCursor): Statement {
  const p = new Params();
  const where = operationFilters(q, p);
  if (newerThan) where.push(...keyset('o', newerThan, true, p).where);
  return { text: capped('creation_operations o', where, cap, p), params: p.values };
}

// ---- release operations -----------------------------------------------------------------------------------------

export const RELEASE_COLUMNS = `r.id, r.idempotency_key, r.actor_id, r.source, r.external_id, r.holder_task_id, r.result_status, r.created_at,
  r.reason, r.request_id, t.identifier AS holder_identifier`;

function releaseFilters(q: ReleasesQuery, dialect: SqlDialect, p: Params): string[] {
  const where = [`r.workspace_id = ${p.add(q.workspaceId)}`];
  if (q.result === 'released') where.push('r.result_status = 204');
  if (q.result === 'nothing_held_it') where.push('r.result_status <> 204');
  if (q.actorId !== null) where.push(`r.actor_id = ${p.add(q.actorId)}`);
  if (q.reason?.kind === 'with') where.push('r.reason IS NOT NULL');
  if (q.reason?.kind === 'without') where.push('r.reason IS NULL');
  if (q.reason?.kind === 'containing') {
    const needle = dialect.asciiLower(`CAST(${p.add(q.reason.text)} AS text)`);
    where.push(`${dialect.position(needle, dialect.asciiLower('r.reason'))} > 0`);
  }
  if (q.prefix !== null) where.push(startsWith('r.external_id', q.prefix, p));
  if (q.from !== null) where.push(`r.created_at >= ${p.add(q.from)}`);
  if (q.before !== null) where.push(`r.created_at < ${p.add(q.before)}`);
  if (q.search !== null) {
    const s = p.add(q.search);
    where.push(`(r.id = ${s} OR r.idempotency_key = ${p.add(q.search.toLowerCase())} OR r.request_id = ${s})`);
  }
  return where;
}

/** One page of releases (`limit` rows plus one), with the holder's identifier when it still exists. */
export function releasesPageStatement(q: ReleasesQuery, page: ListPage, dialect: SqlDialect): Statement {
  const p = new Params();
  const where = releaseFilters(q, dialect, p);
  const k = keyset('r', page.cursor, page.backwards, p);
  return {
    text: `SELECT ${RELEASE_COLUMNS} FROM release_operations r LEFT JOIN tasks t ON t.id = r.holder_task_id
      WHERE ${[...where, ...k.where].join(' AND ')} ORDER BY ${k.order} LIMIT ${p.add(page.limit + 1)}`,
    params: p.values,
  };
}

export function releasesCountStatement(
  q: ReleasesQuery,
  dialect: SqlDialect,
  cap: number,
  newerThan?: ListCursor,
): Statement {
  const p = new Params();
  const where = releaseFilters(q, dialect, p);
  if (newerThan) where.push(...keyset('r', newerThan, true, p).where);
  return { text: capped('release_operations r', where, cap, p), params: p.values };
}

// ---- id namespaces (the part of an external id before its first `:`) ------------------------------------------------

/** The namespace of `column`, or NULL for an id without a `:`. */
function namespaceOf(column: string, dialect: SqlDialect): string {
  const colon = dialect.position("':'", column);
  return `CASE WHEN ${colon} > 1 THEN substr(${column}, 1, ${colon} - 1) END`;
}

/** Per namespace: the workspace's tasks holding an id in it, and how many of those are unsettled. */
export function heldByNamespaceStatement(workspaceId: string, dialect: SqlDialect): Statement {
  const ns = namespaceOf('external_id', dialect);
  return {
    text: `SELECT ${ns} AS ns, COUNT(*) AS held, SUM(CASE WHEN external_id_settled_at IS NULL THEN 1 ELSE 0 END) AS unsettled
      FROM tasks WHERE workspace_id = $1 AND external_id IS NOT NULL GROUP BY ${ns}`,
    params: [workspaceId],
  };
}

/** Per namespace since `since`: creates begun and aborted. */
export function createsByNamespaceStatement(workspaceId: string, since: string, dialect: SqlDialect): Statement {
  const ns = namespaceOf('external_id', dialect);
  return {
    text: `SELECT ${ns} AS ns, COUNT(*) AS creates, SUM(CASE WHEN state = 'aborted' THEN 1 ELSE 0 END) AS aborted
      FROM creation_operations WHERE workspace_id = $1 AND created_at >= $2 AND external_id IS NOT NULL GROUP BY ${ns}`,
    params: [workspaceId, since],
  };
}

/** Per namespace since `since`: release requests, and those that freed an identity. */
export function releasesByNamespaceStatement(workspaceId: string, since: string, dialect: SqlDialect): Statement {
  const ns = namespaceOf('external_id', dialect);
  return {
    text: `SELECT ${ns} AS ns, COUNT(*) AS releases, SUM(CASE WHEN result_status = 204 THEN 1 ELSE 0 END) AS released
      FROM release_operations WHERE workspace_id = $1 AND created_at >= $2 GROUP BY ${ns}`,
    params: [workspaceId, since],
  };
}
