// SPEC §9: the events are the revisions that carry one (every revision after Begin's), and every read of them is a
// range of an index, never a scan of the revisions or a sort of everything that matches: the relay's advance over all
// workspaces (the key, seq), one workspace's page or webhook planning (the partial index by workspace and seq), a
// task's events and revisions (by task and revision), the newest of a workspace (the partial index).
// Each statement is EXPLAINed as written over 6,000 revisions in 200 workspaces, after ANALYZE.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_COLUMNS, eventRangeText } from '../../../src/server/db/repositories/events';
import type { Db } from '../../../src/server/db/types';
import { explain } from '../../support/explain';
import { freshDb, testDialect } from '../../support/db';

const postgres = testDialect() === 'postgres';
let db: Db;
const taskId = randomUUID();

beforeAll(async () => {
  db = await freshDb();
  // 3,000 tasks in 200 workspaces, each with revision 0 (no event) and revision 1 (its `task.created`): half with a
  // stored event id (written before ids were derived), half without (the id derived from the row).
  const rows = postgres
    ? 'SELECT g FROM generate_series(1, 3000) g'
    : 'WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 3000) SELECT g FROM s';
  await db.run(
    `INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_id, event_type)
     SELECT CASE WHEN g = 1 THEN $1 ELSE 't-' || g END, r.revision, 'ws-' || (g % 200),
            'x', NULL, '{}', $2, CASE WHEN r.revision = 1 AND g % 2 = 0 THEN 'e-' || g END,
            CASE WHEN r.revision = 1 THEN 'task.created' END
       FROM (${rows}) AS n, (SELECT 0 AS revision UNION ALL SELECT 1) AS r`,
    [taskId, new Date().toISOString()],
  );
  await db.exec(postgres ? 'ANALYZE task_revisions' : 'ANALYZE');
});
afterAll(async () => db?.close());

const plan = (text: string, params: unknown[]) => explain(db, { text, params });

/**
 * Reads through `index` (SQLite: `key` for the rowid), never a scan of the table; SQLite without a temporary b-tree.
 * PostgreSQL may take a workspace's few matching rows through a bitmap of the index and sort them.
 */
function expectRange(p: string, index: string) {
  if (postgres) {
    expect(p).toMatch(
      new RegExp(
        `Scan( Backward)? using ${index === 'key' ? 'task_revisions_pkey' : index}|Bitmap Index Scan on ${index}`,
      ),
    );
    expect(p).not.toMatch(/Seq Scan/);
  } else {
    expect(p).toMatch(index === 'key' ? /USING INTEGER PRIMARY KEY/ : new RegExp(`USING (COVERING )?INDEX ${index}`));
    expect(p).not.toMatch(/TEMP B-TREE/);
  }
}

describe('every read of the events is an index range (SPEC §9)', () => {
  it('the relay over all workspaces: the key', async () => {
    expectRange(await plan(eventRangeText(EVENT_COLUMNS, false), [100, 5000, 100]), 'key');
  });

  it("one workspace's page and webhook planning: the partial index by workspace and seq", async () => {
    expectRange(
      await plan(eventRangeText(EVENT_COLUMNS, true), [100, 5000, 100, 'ws-3']),
      'idx_task_revisions_workspace_events',
    );
    expectRange(
      await plan(eventRangeText('seq, event_id, task_id, revision', true), [100, 5000, 100, 'ws-3']),
      'idx_task_revisions_workspace_events',
    );
  });

  it("a workspace's newest events and its last one (console, workspace deletion): the partial index backwards", async () => {
    expectRange(
      await plan(
        'SELECT seq FROM task_revisions WHERE workspace_id = $1 AND event_type IS NOT NULL ORDER BY seq DESC LIMIT 20',
        ['ws-3'],
      ),
      'idx_task_revisions_workspace_events',
    );
    expectRange(
      await plan('SELECT MAX(seq) FROM task_revisions WHERE workspace_id = $1 AND event_type IS NOT NULL', ['ws-3']),
      'idx_task_revisions_workspace_events',
    );
  });

  it("a task's revisions and events: by task and revision (a sort of its few rows is fine)", async () => {
    const p = await plan('SELECT revision, snapshot FROM task_revisions WHERE task_id = $1 ORDER BY revision', [
      taskId,
    ]);
    expect(p).toMatch(/uniq_task_revisions_task_revision/);
    expect(p).not.toMatch(/Seq Scan|SCAN task_revisions/);
  });
});
