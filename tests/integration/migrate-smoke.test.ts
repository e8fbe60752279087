import { afterAll, describe, expect, it } from 'vitest';
import { freshDb } from '../support/db';
import { migrate } from '../../src/server/db/migrate';
import type { Db } from '../../src/server/db/types';

describe('migrations (SPEC §12)', () => {
  let db: Db;
  afterAll(async () => db?.close());

  it('apply, then re-apply as a no-op', async () => {
    db = await freshDb();
    const again = await migrate(db);
    expect(again.applied).toEqual([]);
    expect(again.version).toBeGreaterThanOrEqual(1);
  });

  it('lets ext-1 and EXT-1 both be held in one workspace, and refuses the same value twice (SPEC §2.2)', async () => {
    const now = new Date().toISOString();
    await db.run(`INSERT INTO workspaces (id, name, prefix, created_at, updated_at) VALUES ('w1', 'W', 'W', $1, $1)`, [now]);
    await db.run(`INSERT INTO workflow_steps (id, workspace_id, name, position, created_at) VALUES ('s1', 'w1', 'Todo', 0, $1)`, [now]);
    const insert = (id: string, n: number, ext: string) =>
      db.run(
        `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
         VALUES ($1, 'w1', $2, $3, 't', 's1', $4, $4, 'completed', $5)`,
        [id, n, `W-${n}`, now, ext],
      );
    await insert('a', 1, 'ext-1');
    await insert('b', 2, 'EXT-1');
    await expect(insert('c', 3, 'ext-1')).rejects.toThrow();
    const rows = await db.query<{ n: unknown }>('SELECT COUNT(*) AS n FROM tasks');
    expect(Number(rows[0]!.n)).toBe(2);
  });
});
