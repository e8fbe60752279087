// Remembered reads on SQLite (src/server/db/drivers/sqlite.ts): the Found path's identity lookup is answered from
// memory only while the database provably has not changed since the row was read — whoever changed it, by whatever
// path. Each test changes the task one way and asks again: the answer must be the changed task, never the remembered one.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import type { SqliteDb } from '../../../src/server/db/drivers/sqlite';
import { rowBytes } from '../../../src/server/db/drivers/sqlite-remembered';
import { releaseExternalId } from '../../../src/server/domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../../../src/server/domain/tasks/change-task';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { lookupTaskByExternalId } from '../../../src/server/domain/tasks/lookup-task';
import type { Services } from '../../../src/server/services';
import { freshDb, testDialect } from '../../support/db';
import { makeWorkspace, testServices, tokenActor, uniq, type TestWorkspace } from '../../support/fixtures';

describe.skipIf(testDialect() !== 'sqlite')('SQLite remembered reads (the Found path)', () => {
  let db: SqliteDb;
  let services: Services;
  let ws: TestWorkspace;
  let actor: ReturnType<typeof tokenActor>;

  beforeEach(async () => {
    db = (await freshDb()) as SqliteDb;
    services = await testServices(db);
    ws = await makeWorkspace(db);
    actor = tokenActor([ws.id]);
    db.rememberAfter = 0; // keep rows at once (the rule that waits for quiet has a test of its own)
  });
  afterEach(async () => {
    await services.store.close();
  });

  const create = (externalId: string, title = 'Original') =>
    createTask(services, actor, { workspace_id: ws.id, external_id: externalId, title });
  /** A Found's answer, and what it cost: statements, writes, and whether memory answered it. */
  async function found(externalId: string) {
    const before = { ...db.stats, hits: db.rememberedHits };
    const outcome = await create(externalId, 'A retry');
    return {
      outcome,
      statements: db.stats.statements - before.statements,
      writes: db.stats.writes - before.writes,
      remembered: db.rememberedHits - before.hits === 1,
    };
  }
  /** Reads a task's identity once, so the next read of it may come from memory; checks that it does. */
  async function remembered(externalId: string) {
    await found(externalId);
    const again = await found(externalId);
    expect(again.remembered).toBe(true);
    return again;
  }

  it('answers a repeated Found from memory: one statement (the check that nothing changed), no write, the same task', async () => {
    const ext = uniq('mem-');
    const created = await create(ext);
    const first = await found(ext);
    expect(first).toMatchObject({ statements: 1, writes: 0, remembered: false });
    const again = await found(ext);
    expect(again).toMatchObject({ statements: 1, writes: 0, remembered: true });
    expect(again.outcome).toEqual({ kind: 'found_settled', task: created.task });
    expect(again.outcome).toEqual(first.outcome);
    // The lookup (SPEC §7) shares it.
    const hits = db.rememberedHits;
    expect((await lookupTaskByExternalId(services, actor, ws.id, ext)).task).toEqual(created.task);
    expect(db.rememberedHits - hits).toBe(1);
  });

  it("sees this process's own changes at once: update, archive, release, delete", async () => {
    const ext = uniq('own-');
    const { task } = await create(ext);

    await remembered(ext);
    await updateTask(services, actor, task.id, { title: 'Renamed', step_id: ws.steps[1]!.id });
    const renamed = await found(ext);
    // Known changed without asking SQLite: read again at once, one statement as ever.
    expect(renamed).toMatchObject({ remembered: false, statements: 1, writes: 0 });
    expect(renamed.outcome.task).toMatchObject({ title: 'Renamed', stepId: ws.steps[1]!.id, revision: 2 });

    await remembered(ext);
    await setArchived(services, actor, task.id, true);
    expect((await found(ext)).outcome.task.archivedAt).not.toBeNull();

    await remembered(ext);
    await releaseExternalId(services, actor, {
      workspaceId: ws.id,
      rawExternalId: ext,
      idempotencyKey: crypto.randomUUID(),
      source: 'test',
    });
    const after = await create(ext, 'After the release');
    expect(after.kind).toBe('created');
    expect(after.task.id).not.toBe(task.id);

    await remembered(ext);
    await deleteTask(services, actor, after.task.id);
    const recreated = await create(ext, 'After the delete');
    expect(recreated.kind).toBe('created');
    expect(recreated.task.id).not.toBe(after.task.id);
  });

  it("sees another connection's commit: another process on the file (a second server, the CLI)", async () => {
    const ext = uniq('other-');
    const { task } = await create(ext);
    await remembered(ext);
    const other = new Database(db.file);
    try {
      other.prepare('UPDATE tasks SET title = ? WHERE id = ?').run('Changed elsewhere', task.id);
      const seen = await found(ext);
      expect(seen.remembered).toBe(false);
      expect(seen.outcome.task.title).toBe('Changed elsewhere');

      // A release by another Tether process on the same file: the next create makes a new task.
      await remembered(ext);
      const elsewhere = openDb(db.url);
      const otherServices = await testServices(elsewhere);
      try {
        await releaseExternalId(otherServices, actor, {
          workspaceId: ws.id,
          rawExternalId: ext,
          idempotencyKey: crypto.randomUUID(),
          source: 'cli',
        });
      } finally {
        await otherServices.store.close();
      }
      const next = await create(ext, 'New owner');
      expect(next.kind).toBe('created');
      expect(next.task.id).not.toBe(task.id);
    } finally {
      other.close();
    }
  });

  it("sees a write on this connection: the driver's own, one that bypassed it (total_changes), and Prisma's", async () => {
    const ext = uniq('raw-');
    const { task } = await create(ext);
    await remembered(ext);
    await db.run('UPDATE tasks SET title = $1 WHERE id = $2', ['Written alone', task.id]); // its own commit
    // Known changed without asking SQLite: read again at once, one statement as ever.
    expect(await found(ext)).toMatchObject({
      remembered: false,
      statements: 1,
      outcome: { task: { title: 'Written alone' } },
    });

    await remembered(ext);
    db.raw.prepare('UPDATE tasks SET title = ? WHERE id = ?').run('Written around the driver', task.id);
    expect((await found(ext)).outcome.task.title).toBe('Written around the driver');

    await remembered(ext);
    const prisma = await services.store.prisma();
    await prisma.$executeRawUnsafe('UPDATE tasks SET title = ? WHERE id = ?', 'Written by Prisma', task.id);
    expect((await found(ext)).outcome.task.title).toBe('Written by Prisma');
  });

  it('never gives what a transaction wrote before it committed, nor what a rolled-back one wrote', async () => {
    const ext = uniq('tx-');
    const { task } = await create(ext);
    await remembered(ext);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const writing = db.transaction(async (tx) => {
      await tx.run('UPDATE tasks SET title = $1 WHERE id = $2', ['Committed later', task.id]);
      await held;
    });
    // Asked while the transaction is open (and has written): answered once it committed, with its write.
    const asked = found(ext);
    await new Promise((r) => setTimeout(r, 20));
    release();
    await writing;
    expect((await asked).outcome.task.title).toBe('Committed later');

    await remembered(ext);
    await expect(
      db.transaction(async (tx) => {
        await tx.run('UPDATE tasks SET title = $1 WHERE id = $2', ['Rolled back', task.id]);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    const after = await found(ext);
    expect(after.outcome.task.title).toBe('Committed later');
  });

  it('keeps rows only once rememberAfter reads have passed without a change: under writes, a Found reads the file', async () => {
    db.rememberAfter = 3;
    const ext = uniq('quiet-');
    const { task } = await create(ext);
    const remembers = async () => {
      const seen: boolean[] = [];
      for (let i = 0; i < 5; i++) seen.push((await found(ext)).remembered);
      return seen;
    };
    // Three reads pass, the fourth is kept, the fifth is answered from memory.
    expect(await remembers()).toEqual([false, false, false, false, true]);
    await updateTask(services, actor, task.id, { title: 'Changed' });
    expect(await remembers()).toEqual([false, false, false, false, true]);
    // A change by another connection counts as well, once the check has seen it.
    const other = new Database(db.file);
    try {
      other.prepare('UPDATE tasks SET title = ? WHERE id = ?').run('Elsewhere', task.id);
    } finally {
      other.close();
    }
    expect(await remembers()).toEqual([false, false, false, false, true]);
    expect(await remembers()).toEqual([true, true, true, true, true]);
    expect((await found(ext)).outcome.task.title).toBe('Elsewhere');
  });

  it('keeps what fits its byte budget: no row above the per-row limit, and the oldest go first', async () => {
    const [short1, short2, short3, long] = [uniq('s1-'), uniq('s2-'), uniq('s3-'), uniq('long-')];
    for (const e of [short1, short2, short3]) await create(e);
    await createTask(services, actor, {
      workspace_id: ws.id,
      external_id: long,
      title: 'Long',
      description: 'd'.repeat(20_000),
    });
    const row = await db.one<object>('SELECT * FROM tasks WHERE external_id = $1', [short1]);
    // Room for two short rows (the read adds its two version columns: a little more than a stored row).
    db.remembered.bytesLimit = Math.floor(2.5 * rowBytes(row!));
    db.remembered.rowBytesLimit = 10_000;
    await found(long);
    expect((await found(long)).remembered).toBe(false); // ~40 KB: read from the file each time
    for (const e of [short1, short2, short3]) await found(e); // short1 goes when short3 is kept
    expect((await found(short2)).remembered).toBe(true);
    expect((await found(short3)).remembered).toBe(true);
    expect((await found(short1)).remembered).toBe(false);
  });

  it('never remembers a miss, and keeps at most its limit of rows (the oldest goes first)', async () => {
    const ext = uniq('miss-');
    expect(await services.store.tasks.findByExternalId(ws.id, ext)).toBeUndefined();
    const other = new Database(db.file);
    try {
      // A task created by another process: found at once, though the miss came first.
      const { task } = await create(uniq('seed-'));
      other
        .prepare(
          `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id, external_id_settled_at)
           SELECT ?, workspace_id, number + 1000, identifier || '-x', title, step_id, created_at, updated_at, 1, 'completed', ?, created_at FROM tasks WHERE id = ?`,
        )
        .run(crypto.randomUUID(), ext, task.id);
      expect((await services.store.tasks.findByExternalId(ws.id, ext))?.externalId).toBe(ext);
    } finally {
      other.close();
    }

    db.remembered.limit = 2;
    const [a, b, c] = [uniq('a-'), uniq('b-'), uniq('c-')];
    for (const e of [a, b, c]) await create(e);
    for (const e of [a, b, c]) await found(e); // a is dropped when c is kept
    expect((await found(b)).remembered).toBe(true);
    expect((await found(c)).remembered).toBe(true);
    expect((await found(a)).remembered).toBe(false);
  });
});
