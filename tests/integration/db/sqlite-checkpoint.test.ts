// On SQLite a commit checkpoints the WAL only once it holds WAL_AUTOCHECKPOINT_PAGES pages, not SQLite's default
// 1,000: a checkpoint every ~55 creates rewrote the same leaves and synced the file each time (src/server/db/drivers/
// sqlite.ts says what it costs and what it saves). Checked on what the WAL holds, not on the pragma alone.
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteDb, WAL_AUTOCHECKPOINT_PAGES } from '../../../src/server/db/drivers/sqlite';
import { INTERVAL_MS, START_AFTER_COMMITS } from '../../../src/server/db/drivers/sqlite-checkpointer';
import { until } from '../../support/fixtures';
import { runCommand } from '../../support/processes';
import { emptyDb, testDialect } from '../../support/db';

describe.skipIf(testDialect() !== 'sqlite')('when the SQLite WAL is checkpointed', () => {
  it('only once it holds WAL_AUTOCHECKPOINT_PAGES pages, and then it starts over', async () => {
    const db = (await emptyDb()) as SqliteDb;
    // The committing connection's own threshold, without the thread that checkpoints a busy connection sooner.
    await db.checkpointer?.stop();
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

  it('from a thread of its own once the connection is busy, while commits go on', async () => {
    const db = (await emptyDb()) as SqliteDb;
    try {
      await db.exec('CREATE TABLE pages (n integer PRIMARY KEY, filler text)');
      db.raw.pragma('wal_checkpoint(TRUNCATE)');
      const checkpointer = db.checkpointer!;
      const insert = (n: number) =>
        db.transaction((tx) => tx.run('INSERT INTO pages (n, filler) VALUES ($1, $2)', [n, 'x'.repeat(3000)]));
      // Quiet until the connection has committed START_AFTER_COMMITS times.
      let n = 0;
      for (; n < START_AFTER_COMMITS - 1; n++) await insert(n);
      await new Promise((r) => setTimeout(r, INTERVAL_MS * 2));
      expect(checkpointer.done.checkpoints).toBe(0);
      // Then every INTERVAL_MS while commits come in: each copies what the WAL held back into the file.
      const started = Date.now();
      while (checkpointer.done.checkpoints < 3) {
        await insert(n++);
        if (Date.now() - started > 20_000) throw new Error('no background checkpoint');
      }
      expect(checkpointer.done.failures).toBe(0);
      // (One of them may find nothing to copy: a commit after a checkpoint that copied everything starts the WAL over,
      // and until that commit's own COMMIT the WAL holds no committed frame.)
      expect(checkpointer.done.framesCopied).toBeGreaterThan(0);
      // The commits after the last one are checkpointed too, with no further commit to prompt it.
      const last = checkpointer.done.checkpoints;
      await until(() => checkpointer.done.checkpoints > last, 5_000, 'a checkpoint after the last commit');
      expect(checkpointer.done.lastCopied).toBe(checkpointer.done.lastFrames);
      // Everything copied, the next commit starts the WAL over from its beginning (SQLite's rule): it holds only that
      // commit's frames, and the connection's own checkpoint, at WAL_AUTOCHECKPOINT_PAGES, had nothing to do.
      await insert(n++);
      const [row] = db.raw.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
      expect(row!.log).toBeLessThan(10);
      // Every row is in the database file itself, readable without the WAL.
      expect(await db.one('SELECT count(*) AS c FROM pages')).toEqual({ c: n });
    } finally {
      await db.close();
    }
  }, 60_000);

  it('a process that closes its database goes on after the close returns', async () => {
    // The checkpointing thread does not keep a process alive; waiting for it to end must, or the process ends there.
    const file = join(mkdtempSync(join(tmpdir(), 'tether-sqlite-close-')), 'tether.db');
    const child = resolve(import.meta.dirname, 'sqlite-close-child.ts');
    const run = await runCommand(process.execPath, ['--import', 'tsx', child, file], {});
    expect(run).toMatchObject({ code: 0, stdout: 'closed\n' });
  }, 60_000);
});
