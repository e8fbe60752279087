// Group commit on SQLite (src/server/db/drivers/sqlite.ts): transactions that end while others wait share one COMMIT,
// each in a savepoint of its own, and nothing is answered before the commit that carries it. Checked on the file
// itself, through a second connection, which sees only what was committed.
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_GROUP, SqliteDb } from '../../../src/server/db/drivers/sqlite';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { emptyDb, freshDb, testDialect } from '../../support/db';
import { makeWorkspace, testServices, tokenActor } from '../../support/fixtures';

describe.skipIf(testDialect() !== 'sqlite')('SQLite group commit', () => {
  let db: SqliteDb;
  /** Another connection to the same file: it sees only committed rows. */
  let other: Database.Database;
  const committed = (): number[] =>
    (other.prepare('SELECT n FROM rows ORDER BY n').all() as Array<{ n: number }>).map((r) => r.n);

  beforeEach(async () => {
    db = (await emptyDb()) as SqliteDb;
    await db.exec('CREATE TABLE rows (n integer PRIMARY KEY)');
    other = new Database(db.file, { readonly: true });
  });
  afterEach(async () => {
    other.close();
    await db.close();
  });

  const insert = (n: number) => db.transaction((tx) => tx.run('INSERT INTO rows (n) VALUES ($1)', [n]));

  it('commits concurrent transactions once, and answers each only after that commit', async () => {
    const before = db.commits;
    const seen: number[][] = [];
    await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) =>
        insert(n).then(() => {
          // Whatever a member is told, the file already holds: its row and every other member's.
          seen.push(committed());
        }),
      ),
    );
    expect(db.commits - before).toBe(1);
    expect(seen).toEqual(Array.from({ length: 8 }, () => [1, 2, 3, 4, 5, 6, 7, 8]));
  });

  it('commits a transaction alone as before when nothing else waits', async () => {
    const before = db.commits;
    await insert(1);
    expect(committed()).toEqual([1]);
    await insert(2);
    expect(committed()).toEqual([1, 2]);
    expect(db.commits - before).toBe(2);
  });

  it('undoes only the failed member: the others commit', async () => {
    const results = await Promise.allSettled([
      insert(1),
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO rows (n) VALUES ($1)', [2]);
        await tx.run('INSERT INTO rows (n) VALUES ($1)', [1]); // a unique violation: row 1 is the first member's
      }),
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO rows (n) VALUES ($1)', [3]);
        throw new Error('refused');
      }),
      insert(4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect(committed()).toEqual([1, 4]);
    // The members' writes stayed undone in the connection too (its own view).
    expect(await db.query('SELECT n FROM rows ORDER BY n')).toEqual([{ n: 1 }, { n: 4 }]);
  });

  it('answers a statement run inside an open group only after the group committed', async () => {
    const first = insert(1);
    // Queued behind the transaction: it runs inside the group, reads its uncommitted row, and waits for the commit.
    const read = db.query<{ n: number }>('SELECT n FROM rows').then((rows) => ({ rows, onFile: committed() }));
    await first;
    expect(await read).toEqual({ rows: [{ n: 1 }], onFile: [1] });
  });

  it('fails every member of a group whose COMMIT fails, writes none of it, and answers its reads again alone', async () => {
    // A deferred foreign key is checked at COMMIT: one member's orphan fails the whole group's commit.
    await db.exec(
      'CREATE TABLE parents (id integer PRIMARY KEY); ' +
        'CREATE TABLE children (parent integer REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)',
    );
    const results = await Promise.allSettled([
      insert(1),
      db.transaction((tx) => tx.run('INSERT INTO children (parent) VALUES ($1)', [42])),
      db.query('SELECT n FROM rows'),
      insert(2),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'rejected']);
    expect(committed()).toEqual([]);
    // The read ran inside the group and saw its rows; the group never committed, so it was answered by running again
    // alone, on what the file holds (a full disk fails writes, not reads).
    expect((results[2] as PromiseFulfilledResult<unknown>).value).toEqual([]);
    // The connection is usable afterwards, outside any transaction.
    await insert(3);
    expect(committed()).toEqual([3]);
  });

  it(`commits a group once it carries ${MAX_GROUP} transactions`, async () => {
    const before = db.commits;
    await Promise.all(Array.from({ length: MAX_GROUP + 1 }, (_, i) => insert(i)));
    expect(db.commits - before).toBe(2);
    expect(committed()).toHaveLength(MAX_GROUP + 1);
  });

  it('commits the open group before a script runs outside it', async () => {
    const first = insert(1);
    const script = db.exec('PRAGMA wal_checkpoint(PASSIVE)').then(() => committed());
    await first;
    expect(await script).toEqual([1]);
  });
});

describe.skipIf(testDialect() !== 'sqlite')('concurrent creates on SQLite, grouped', () => {
  it('give one task per identity, numbers without gaps, and a task for every other create', async () => {
    const db = (await freshDb()) as SqliteDb;
    const services = await testServices(db);
    try {
      const workspace = await makeWorkspace(db);
      const actor = tokenActor([workspace.id]);
      const before = db.commits;
      const create = (externalId: string, i: number) =>
        createTask(services, actor, { workspace_id: workspace.id, external_id: externalId, title: `t${i}` });
      // Eight creates of one identity and eight of distinct ones, all in flight together.
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, (_, i) => create(i % 2 === 0 ? 'same' : `other-${i}`, i)),
      );
      const same = outcomes.filter((_, i) => i % 2 === 0);
      expect(new Set(same.map((o) => o.task.id)).size).toBe(1);
      expect(same.filter((o) => o.kind === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(9);
      const numbers = await db.query<{ number: number }>(
        'SELECT number FROM tasks WHERE workspace_id = $1 ORDER BY number',
        [workspace.id],
      );
      expect(numbers.map((r) => Number(r.number))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // They shared commits: fewer than one per create.
      expect(db.commits - before).toBeLessThan(9);
    } finally {
      await db.close();
    }
  });
});
