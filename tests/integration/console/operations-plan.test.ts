// SPEC §13: the operations list pages with a total, whatever the workspace holds. Over 10,000 operations (and another
// workspace's 20,000) the page statement is EXPLAINed as it runs (console-lists-sql.ts): a range of the workspace's
// (workspace_id, created_at) index read newest first — on the first page, a later one and one read backwards, and with
// a state filter — never a scan of the table or a sort of everything that matches. Then every page is read through the
// procedure, counts included, and the time per page is PRINTED (never asserted: speed is measured, not tested).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  operationsCountStatement,
  operationsPageStatement,
} from '../../../src/server/db/repositories/console-lists-sql';
import type { Statement } from '../../../src/server/db/repositories/browse-sql';
import type { Store } from '../../../src/server/db/store';
import type { Db } from '../../../src/server/db/types';
import { listOperations } from '../../../src/server/domain/console/lists';
import type { OperationsQuery } from '../../../src/server/domain/console/rows';
import { explain } from '../../support/explain';
import { freshDb, storeFor, testDialect } from '../../support/db';
import { makeWorkspace, userActor, type TestWorkspace } from '../../support/fixtures';

const OPERATIONS = 10_000;
const PAGE = 50;
let db: Db;
let store: Store;
let ws: TestWorkspace;

/** `count` operations in one statement, a second apart in pairs (ties are ordered by id), one in seven aborted. */
async function bulkLoad(w: TestWorkspace, count: number): Promise<void> {
  const base = Date.parse('2026-10-01T00:00:00.000Z');
  const params = [w.id, randomUUID().slice(0, 8), base, count];
  // Millisecond timestamps, as every writer stores them (a cursor carries milliseconds).
  if (testDialect() === 'postgres') {
    await db.run(
      `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, identity_released, generation, created_at, updated_at)
       SELECT $2::text || '-' || g, $1, 't-' || g, 'system', 'jira:' || g, CASE WHEN g % 7 = 0 THEN 'aborted' ELSE 'completed' END, '{}', 'x', false, 0,
              to_timestamp(($3::bigint + (g / 2) * 1000) / 1000.0), to_timestamp(($3::bigint + (g / 2) * 1000) / 1000.0)
       FROM generate_series(1, $4::int) g`,
      params,
    );
  } else {
    await db.run(
      `WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < $4)
       INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, identity_released, generation, created_at, updated_at)
       SELECT $2 || '-' || g, $1, 't-' || g, 'system', 'jira:' || g, CASE WHEN g % 7 = 0 THEN 'aborted' ELSE 'completed' END, '{}', 'x', 0, 0,
              strftime('%Y-%m-%dT%H:%M:%fZ', ($3 + (g / 2) * 1000) / 1000.0, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', ($3 + (g / 2) * 1000) / 1000.0, 'unixepoch')
       FROM s`,
      params,
    );
  }
  // Statistics, and (PostgreSQL) the visibility map autovacuum keeps on a live server: counts read the index alone.
  await db.exec(testDialect() === 'postgres' ? 'VACUUM ANALYZE creation_operations' : 'ANALYZE');
}

beforeAll(async () => {
  db = await freshDb();
  store = storeFor(db);
  ws = await makeWorkspace(db);
  // Other workspaces hold more than this one (as on a real server): the planner weighs a workspace's share.
  await bulkLoad(await makeWorkspace(db), 20_000);
  await bulkLoad(ws, OPERATIONS);
}, 120_000);
afterAll(async () => db?.close());

const query = (over: Partial<OperationsQuery> = {}): OperationsQuery => ({
  workspaceId: ws.id,
  state: null,
  prefix: null,
  from: null,
  before: null,
  idPrefix: null,
  requestId: null,
  ...over,
});

const plan = (s: Statement) => explain(db, s);

/**
 * A range of idx_creation_operations_workspace read in created_at order. Rows of the same instant are put in id order
 * as they come (PostgreSQL's incremental sort, SQLite's sort of the "right part" of the ORDER BY): never a sort of
 * every row that matches, never a scan of the table.
 */
function expectWorkspaceRange(text: string): void {
  if (testDialect() === 'postgres') {
    expect(text).toMatch(/Index Scan (Backward )?using idx_creation_operations_workspace on creation_operations o/);
    expect(text).not.toMatch(/Seq Scan on creation_operations/);
    // Either no sort at all, or an incremental one over created_at.
    for (const sort of text.match(/^.*\bSort\b.*$/gm) ?? [])
      if (!/Sort Key/.test(sort)) expect(sort).toMatch(/Incremental Sort/);
  } else {
    expect(text).toMatch(
      /SEARCH o USING INDEX idx_creation_operations_workspace \(workspace_id=\?( AND created_at[<>]\?)?\)/,
    );
    expect(text).not.toMatch(/SCAN o\b|USE TEMP B-TREE FOR ORDER BY/);
  }
}

describe('the operations list pages on an index (SPEC §13)', () => {
  const cursor = { at: '2026-10-01T00:41:40.000Z', id: 'zzz' };

  it('the first page, a later page and a page read backwards are ranges of idx_creation_operations_workspace', async () => {
    const texts = [
      await plan(operationsPageStatement(query(), { cursor: null, backwards: false, limit: PAGE })),
      await plan(operationsPageStatement(query(), { cursor, backwards: false, limit: PAGE })),
      await plan(operationsPageStatement(query(), { cursor, backwards: true, limit: PAGE })),
      await plan(operationsPageStatement(query({ state: 'completed' }), { cursor, backwards: false, limit: PAGE })),
    ];
    console.log(`operations page plans (${testDialect()}):\n${texts.join('\n---\n')}`);
    for (const text of texts) expectWorkspaceRange(text);
  });

  it('the total is counted only so far (a capped count); a page’s position is a range of the same index', async () => {
    // The whole workspace's count is whatever the planner finds cheapest for a third of the table, but never more
    // than the cap; the position of a page counts the rows newer than it, a range of the index.
    const total = await plan(operationsCountStatement(query(), 100_001));
    if (testDialect() === 'postgres') expect(total).toMatch(/Aggregate[\s\S]*->\s+Limit/);
    else expect(total).toMatch(/USING (COVERING )?INDEX idx_creation_operations_workspace \(workspace_id=\?\)/);
    const position = await plan(
      operationsCountStatement(query(), 100_001, { at: '2026-10-01T01:23:00.000Z', id: 'zzz' }),
    );
    if (testDialect() === 'postgres')
      expect(position).toMatch(/(Index (Only )?Scan using|Bitmap Index Scan on) idx_creation_operations_workspace/);
    else
      expect(position).toMatch(
        /USING (COVERING )?INDEX idx_creation_operations_workspace \(workspace_id=\? AND created_at>\?\)/,
      );
    expect(position).not.toMatch(/Seq Scan on creation_operations|SCAN o\b/);
  });

  it('a search by request id is a range of idx_creation_operations_workspace, and finds the operation', async () => {
    // No index on the request id (20261203000004_drop_operations_request_index): the search is an OR of the request id,
    // the operations whose history names it and, for an id-like search, the operation id, which PostgreSQL answered
    // from the workspace's range whether or not there was one.
    const requestId = randomUUID();
    await db.run('UPDATE creation_operations SET request_id = $1 WHERE workspace_id = $2 AND task_id = $3', [
      requestId,
      ws.id,
      't-77',
    ]);
    const search = (q: string) => query({ requestId: q, idPrefix: q });
    const text = await plan(
      operationsPageStatement(search(requestId), { cursor: null, backwards: false, limit: PAGE }),
    );
    console.log(`operations search plan (${testDialect()}):\n${text}`);
    expectWorkspaceRange(text);
    const page = await store.console.operationsPage(search(requestId), { cursor: null, backwards: false, limit: PAGE });
    expect(page.rows.map((o) => [o.task_id, o.request_id])).toEqual([['t-77', requestId]]);
  });

  it(`reads all ${OPERATIONS.toLocaleString('en')} operations in pages of ${PAGE}, each with its total and position (time per page printed)`, async () => {
    const reader = userActor({ [ws.id]: 'viewer' });
    const times: number[] = [];
    const seen = new Set<string>();
    // The first read builds Prisma Client (a cold start, once per process): not a page's cost.
    await listOperations(store, reader, { workspace_id: ws.id, limit: PAGE, direction: 'after' });
    let cursor: string | null = null;
    let position = 1;
    do {
      const started = performance.now();
      const page: Awaited<ReturnType<typeof listOperations>> = await listOperations(store, reader, {
        workspace_id: ws.id,
        limit: PAGE,
        direction: 'after',
        cursor,
      });
      times.push(performance.now() - started);
      expect(page.total).toBe(OPERATIONS);
      expect(page.first_position).toBe(position);
      for (const r of page.rows) seen.add(r.id);
      position += page.rows.length;
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen.size).toBe(OPERATIONS);
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
    console.log(
      `operations list, ${testDialect()}: ${times.length} pages of ${PAGE} over ${OPERATIONS} operations — ms per page (page + total + position): ` +
        `p50 ${at(0.5)}, p95 ${at(0.95)}, max ${sorted.at(-1)!.toFixed(1)}, first ${times[0]!.toFixed(1)}, last ${times.at(-1)!.toFixed(1)} (target: under 300)`,
    );
  }, 120_000);
});
