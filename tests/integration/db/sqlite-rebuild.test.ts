// SPEC §12 on SQLite: an incompatible `tasks` table (external_id COLLATE NOCASE, from an old build) is rebuilt in
// one transaction without losing a byte of any row, and a failure mid-rebuild leaves the original intact.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { attest } from '../../../src/server/db/schema/attest';
import type { SqliteDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import { rebuildSqliteTasksTable, type RebuildStage } from '../../../src/server/db/schema/sqlite-rebuild';
import { freshDb, testDialect } from '../../support/db';
import { makeWorkspace } from '../../support/fixtures';
import { makeSqliteTasksNocase, replaceSqliteTasksTable } from './schema-edits';

// Values a byte-losing copy would mangle: case, normalization forms, astral planes, controls, quotes, blobs.
const ODD: Array<string | Buffer | null> = [
  'ext-1',
  'Ünïcödé-ＦＵＬＬＷＩＤＴＨ',
  'e\u0301', // NFD: distinct from NFC 'é'
  '\u00e9',
  '👩‍👩‍👧‍👦 family 🏳️‍🌈',
  '\u200b\u200d\u2060 zero-width',
  'עברית ← RTL',
  '\u0001\u0002\u001f\u007f controls',
  `quotes ' " \` \\ ; --`,
  ' padded ',
  'x'.repeat(255),
  Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x7f]), // a BLOB in a text column
  null,
];

type Snapshot = Array<Record<string, unknown>>;

/** Every column of every row as (storage class, hex bytes): equality means no byte changed. */
async function snapshot(db: SqliteDb): Promise<Snapshot> {
  const cols = (await db.query<{ name: string }>(`SELECT name FROM pragma_table_xinfo('tasks')`)).map((c) => c.name);
  const select = cols.map((c) => `typeof("${c}") || ':' || hex("${c}") AS "${c}"`).join(', ');
  return db.query(`SELECT rowid AS _rowid, ${select} FROM tasks ORDER BY rowid`);
}

async function nocaseTableWithOddRows(): Promise<SqliteDb> {
  const db = (await freshDb()) as SqliteDb;
  makeSqliteTasksNocase(db);
  const ws = await makeWorkspace(db);
  const now = new Date().toISOString();
  for (const [n, value] of ODD.entries()) {
    await db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, description, step_id, parent_id, created_at, updated_at,
                          creation_state, external_id, external_id_settled_at, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, 'completed', $10, $11, $12)`,
      [
        randomUUID(),
        ws.id,
        n + 1,
        `${ws.prefix}-${n + 1}`,
        typeof value === 'string' ? value : `t${n}`,
        value,
        ws.steps[0]!.id,
        null,
        now,
        typeof value === 'string' ? value : null,
        typeof value === 'string' ? now : null,
        n,
      ],
    );
  }
  return db;
}

describe.skipIf(testDialect() !== 'sqlite')('SQLite tasks rebuild (SPEC §12)', () => {
  let db: SqliteDb | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('starts from a NOCASE table that attestation refuses', async () => {
    db = await nocaseTableWithOddRows();
    expect((await attest(db)).reasons).toContain('tasks.external_id collation is NOCASE, expected BINARY');
  });

  it('converts a NOCASE table to BINARY without losing a byte of any row', async () => {
    db = await nocaseTableWithOddRows();
    const before = await snapshot(db);
    const result = await rebuildSqliteTasksTable(db);
    expect(result.rows).toBe(ODD.length);
    expect(await snapshot(db)).toEqual(before);
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [] });
  });

  it('keeps every other index of tasks, and EXT-1 can now be held next to ext-1', async () => {
    db = await nocaseTableWithOddRows();
    const indexNames = async () =>
      (
        await db!.query<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' ORDER BY name`,
        )
      ).map((r) => r.name);
    const before = await indexNames();
    await rebuildSqliteTasksTable(db);
    expect(await indexNames()).toEqual(before);
    const row = await db.one<Record<string, unknown>>(`SELECT * FROM tasks WHERE external_id = 'ext-1'`);
    await db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
       VALUES ($1, $2, 1000, 'X-1000', 't', $3, $4, $4, 'completed', 'EXT-1')`,
      [randomUUID(), row!.workspace_id, row!.step_id, row!.created_at],
    );
    expect(
      await db.query(`SELECT external_id FROM tasks WHERE external_id IN ('ext-1', 'EXT-1') ORDER BY external_id`),
    ).toEqual([{ external_id: 'EXT-1' }, { external_id: 'ext-1' }]);
  });

  it.each<RebuildStage>(['created', 'copied', 'verified', 'dropped', 'renamed', 'indexed'])(
    'leaves the original table intact when it fails after stage %s',
    async (failAt) => {
      db = await nocaseTableWithOddRows();
      const schema = () => db!.query(`SELECT type, name, sql FROM sqlite_master ORDER BY type, name`);
      const [rowsBefore, schemaBefore] = [await snapshot(db), await schema()];
      await expect(
        rebuildSqliteTasksTable(db, {
          onStage: (stage) => {
            if (stage === failAt) throw new Error(`injected failure at ${stage}`);
          },
        }),
      ).rejects.toThrow(`injected failure at ${failAt}`);
      expect(await schema()).toEqual(schemaBefore);
      expect(await snapshot(db)).toEqual(rowsBefore);
      expect((await db.one<{ foreign_keys: number }>('PRAGMA foreign_keys'))?.foreign_keys).toBe(1);
    },
  );

  it('runs from migrate() when tasks fails attestation for a collation reason', async () => {
    db = await nocaseTableWithOddRows();
    const before = await snapshot(db);
    const result = await migrate(db);
    expect(result.rebuild).toMatchObject({ ok: true, result: { rows: ODD.length } });
    expect(await snapshot(db)).toEqual(before);
    expect((await attest(db)).ready).toBe(true);
  });

  it('repairs a wrong identity index too (keys reversed, no predicate)', async () => {
    db = (await freshDb()) as SqliteDb;
    replaceSqliteTasksTable(
      db,
      (sql) => sql.replace('external_id_settled_at', 'external_id_settled_at '),
      (name, sql) =>
        name === 'uniq_tasks_external_id'
          ? 'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (external_id, workspace_id)'
          : sql,
    );
    expect((await attest(db)).ready).toBe(false);
    await rebuildSqliteTasksTable(db);
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [] });
  });

  it('refuses to commit a rebuild that would not attest, and changes nothing', async () => {
    db = await nocaseTableWithOddRows();
    // A second unique index over external_id survives the rebuild (it is copied verbatim), so re-attestation fails.
    await db.exec('CREATE UNIQUE INDEX uniq_tasks_ext_nocase ON tasks (external_id COLLATE NOCASE)');
    const before = await snapshot(db);
    await expect(rebuildSqliteTasksTable(db)).rejects.toThrow(/did not attest: unique index uniq_tasks_ext_nocase/);
    expect(await snapshot(db)).toEqual(before);
    expect((await attest(db)).reasons).toContain('tasks.external_id collation is NOCASE, expected BINARY');
  });
});
