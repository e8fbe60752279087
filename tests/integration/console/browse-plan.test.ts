// The console's task browser searches by prefix through the identity index on both dialects. The browser's statements, exactly as
// IdentityRepository runs them (browse-sql.ts), are EXPLAINed over 20,000 tasks: a prefix page sorted by external id
// is a range scan of uniq_tasks_external_id — `external_id >= p AND external_id < next(p)` under the column's binary
// collation — read in index order (no sort step), on the first page, a later page and backwards alike; and the
// matching count is capped, so a broad prefix never counts the whole workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countStatement, segmentStatement, type Statement } from '../../../src/server/db/repositories/browse-sql';
import type { Store } from '../../../src/server/db/store';
import type { Db } from '../../../src/server/db/types';
import { browseTasks } from '../../../src/server/domain/console/browse';
import type { BrowseQuery } from '../../../src/server/domain/console/rows';
import { explain } from '../../support/explain';
import { freshDb, storeFor, testDialect } from '../../support/db';
import { makeWorkspace, userActor, type TestWorkspace } from '../../support/fixtures';

const TASKS = 20_000;
let db: Db;
let store: Store;
let ws: TestWorkspace;

/** `count` settled tasks `ext-1 … ext-count` in one statement (as the bench's bulk load), then fresh statistics. */
async function bulkLoad(w: TestWorkspace, count: number): Promise<void> {
  const params = [w.id.slice(0, 8), w.id, w.prefix, w.steps[0]!.id, new Date().toISOString(), count];
  const insert = `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state,
      external_id, external_id_settled_at)`;
  if (testDialect() === 'postgres') {
    await db.run(
      `${insert} SELECT $1::text || '-' || g, $2, g, $3::text || '-' || g, 'bulk ' || g, $4, $5::timestamptz, $5::timestamptz, 1, 'completed',
         'ext-' || g, $5::timestamptz FROM generate_series(1, $6::int) g`,
      params,
    );
  } else {
    await db.run(
      `${insert} WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < $6)
       SELECT $1 || '-' || g, $2, g, $3 || '-' || g, 'bulk ' || g, $4, $5, $5, 1, 'completed', 'ext-' || g, $5 FROM s`,
      params,
    );
  }
  await db.exec('ANALYZE');
}

beforeAll(async () => {
  db = await freshDb();
  store = storeFor(db);
  ws = await makeWorkspace(db);
  // Another workspace with the same ids: the range must stay inside this workspace's part of the index.
  await bulkLoad(await makeWorkspace(db), 2_000);
  await bulkLoad(ws, TASKS);
}, 120_000);
afterAll(async () => db?.close());

const query = (over: Partial<BrowseQuery>): BrowseQuery => ({
  workspaceId: ws.id,
  prefix: null,
  settlement: 'any',
  archived: 'include',
  stepId: null,
  createdFrom: null,
  createdBefore: null,
  sort: 'external_id',
  dir: 'asc',
  ...over,
});

const plan = (s: Statement) => explain(db, s);

/** A range scan of the identity index bounded on both sides, in index order. */
function expectIdentityRange(text: string): void {
  if (testDialect() === 'postgres') {
    expect(text).toMatch(/Index (Only )?Scan (Backward )?using uniq_tasks_external_id on tasks/);
    expect(text).toMatch(/Index Cond: .*external_id >=? .*external_id < /s);
    expect(text).not.toMatch(/Sort|Seq Scan on tasks/);
  } else {
    expect(text).toMatch(
      /SEARCH t USING INDEX uniq_tasks_external_id \(workspace_id=\? AND external_id>\? AND external_id<\?\)/,
    );
    expect(text).not.toMatch(/TEMP B-TREE|SCAN t\b/);
  }
}

describe('the browser uses the identity index', () => {
  it('a prefix page sorted by external id is a range of uniq_tasks_external_id, in index order', async () => {
    expectIdentityRange(await plan(segmentStatement(query({ prefix: 'ext-1' }), 'held', null, false, 26)));
  });

  it('so is a later page (keyset after a cursor), a page read backwards, and the descending sort', async () => {
    const cursor = { segment: 'held' as const, key: 'ext-1234', number: 1234 };
    expectIdentityRange(await plan(segmentStatement(query({ prefix: 'ext-1' }), 'held', cursor, false, 26)));
    expectIdentityRange(await plan(segmentStatement(query({ prefix: 'ext-1' }), 'held', cursor, true, 26)));
    expectIdentityRange(await plan(segmentStatement(query({ prefix: 'ext-1', dir: 'desc' }), 'held', null, false, 26)));
  });

  it('a prefix that is not ASCII is still a range (the bounds are code points, not bytes)', async () => {
    expectIdentityRange(
      await plan(segmentStatement(query({ prefix: 'ext-\u00e9\u{10FFFF}' }), 'held', null, false, 26)),
    );
  });

  it('the capped count of a narrow prefix is a range of the same index', async () => {
    // (A prefix matching half the workspace is counted by whatever the planner likes best: the cap bounds it.)
    const text = await plan(countStatement(query({ prefix: 'ext-19' }), 10_001));
    if (testDialect() === 'postgres')
      expect(text).toMatch(
        /(Index Only Scan|Index Scan) using uniq_tasks_external_id|Bitmap Index Scan on uniq_tasks_external_id/,
      );
    else
      expect(text).toMatch(
        /USING (COVERING )?INDEX uniq_tasks_external_id \(workspace_id=\? AND external_id>\? AND external_id<\?\)/,
      );
  });

  it('a prefix page answers in index order with a capped count: 11,111 ids start with "ext-1"', async () => {
    const reader = userActor({ [ws.id]: 'viewer' });
    const input = {
      workspaceId: ws.id,
      prefix: 'ext-1',
      settlement: 'any',
      archived: 'include',
      stepId: null,
      createdFrom: null,
      createdTo: null,
      sort: 'external_id',
      dir: 'asc',
      cursor: null,
      direction: 'after',
      limit: 5,
    } as const;
    const page = await browseTasks(store, reader, input);
    expect(page.rows.map((r) => r.external_id)).toEqual(['ext-1', 'ext-10', 'ext-100', 'ext-1000', 'ext-10000']);
    expect({ matching: page.matching, capped: page.matching_capped }).toEqual({ matching: 10_000, capped: true });
    const next = await browseTasks(store, reader, { ...input, cursor: page.next_cursor });
    expect(next.rows.map((r) => r.external_id)).toEqual([
      'ext-10001',
      'ext-10002',
      'ext-10003',
      'ext-10004',
      'ext-10005',
    ]);
    const narrow = await browseTasks(store, reader, { ...input, prefix: 'ext-1999' });
    expect({ matching: narrow.matching, capped: narrow.matching_capped }).toEqual({ matching: 11, capped: false });
  });
});
