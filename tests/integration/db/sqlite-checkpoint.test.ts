// On SQLite a commit checkpoints the WAL only once it holds WAL_AUTOCHECKPOINT_PAGES pages, not SQLite's default
// 1,000: a checkpoint every ~55 creates rewrote the same leaves and synced the file each time (src/server/db/drivers/
// sqlite.ts says what it costs and what it saves). Checked on what the WAL holds, not on the pragma alone.
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SqliteDb, WAL_AUTOCHECKPOINT_PAGES } from '../../../src/server/db/drivers/sqlite';
import { emptyDb, testDialect } from '../../support/db';

describe.skipIf(testDialect() !== 'sqlite')('when the SQLite WAL is checkpointed', () => {
  it('only once it holds WAL_AUTOCHECKPOINT_PAGES pages, and then it starts over', async () => {
    const db = (await emptyDb()) as SqliteDb;
    try {
      const pageSize = Number(db.raw.pragma('page_size', { simple: true }));
      /** Frames the WAL file has room for: the most it held since it was truncated (a checkpoint never shrinks it). */
      const walFrames = () => (statSync(`${db.file}-wal`).size - 32) / (24 + pageSize);
      await db.exec('CREATE TABLE pages (n integer PRIMARY KEY)');
      db.raw.pragma('wal_checkpoint(TRUNCATE)');
      let n = 0;
      // Each autocommitted insert commits at least the table's last leaf: one frame or more.
      for (; n < 1_500; n++) await db.run('INSERT INTO pages (n) VALUES ($1)', [n]);
      // At SQLite's default, the commit that took the WAL past 1,000 frames would have checkpointed it and the next
      // ones would have written from its start again.
      expect(walFrames()).toBeGreaterThanOrEqual(1_500);
      for (; n < WAL_AUTOCHECKPOINT_PAGES + 1_500; n++) await db.run('INSERT INTO pages (n) VALUES ($1)', [n]);
      // Past the threshold a commit checkpointed and the WAL started over: it holds only what came after.
      const [row] = db.raw.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
      expect(row!.log).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES);
      expect(walFrames()).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES * 1.1);
    } finally {
      await db.close();
    }
  }, 60_000);
});
