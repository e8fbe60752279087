// Test helpers that damage a migrated schema the way a hand edit or an old build would (SPEC §12 look-alikes).
import type { SqliteDb } from '../../../src/server/db/drivers';

/**
 * SQLite: replaces the (empty) `tasks` table by an edited copy of its own CREATE TABLE text, and its indexes by
 * edited copies of theirs (`null` drops one). SQLite cannot ALTER a column's collation, hence the swap.
 */
export function replaceSqliteTasksTable(
  db: SqliteDb,
  editTable: (sql: string) => string,
  editIndex: (name: string, sql: string) => string | null = (_n, sql) => sql,
): void {
  const raw = db.raw;
  const table = raw.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tasks'`).get() as {
    sql: string;
  };
  const indexes = raw
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND sql IS NOT NULL`)
    .all() as Array<{
    name: string;
    sql: string;
  }>;
  const edited = editTable(table.sql);
  if (edited === table.sql) throw new Error('replaceSqliteTasksTable: the table edit changed nothing');
  raw.exec('PRAGMA foreign_keys = OFF');
  raw.transaction(() => {
    raw.exec('DROP TABLE tasks');
    raw.exec(edited);
    for (const ix of indexes) {
      const sql = editIndex(ix.name, ix.sql);
      if (sql) raw.exec(sql);
    }
  })();
  raw.exec('PRAGMA foreign_keys = ON');
}

/** The SQLite `tasks` table as an old build might have made it: external_id compared case-insensitively. */
export function makeSqliteTasksNocase(db: SqliteDb): void {
  replaceSqliteTasksTable(
    db,
    (sql) => sql.replace(/external_id(\s+)text COLLATE BINARY/, 'external_id$1text COLLATE NOCASE'),
    (name, sql) => (name === 'uniq_tasks_external_id' ? sql.replace('external_id COLLATE BINARY', 'external_id') : sql),
  );
}
