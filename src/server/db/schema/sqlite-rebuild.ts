// SPEC §12: SQLite cannot alter a column's collation, so an incompatible `tasks` table (e.g. external_id
// declared COLLATE NOCASE, or a wrong uniq_tasks_external_id) is rebuilt inside ONE transaction: create the
// correct table, copy every column, verify every row byte for byte, drop, rename, recreate the indexes and
// triggers, re-attest. Any failure rolls the whole thing back and leaves the original table untouched.
// This is SQLite's documented 12-step "make other kinds of table schema changes" procedure.
import type { Sql } from '../types';
import type { SqliteDb } from '../drivers';
import { COLLATION_FINDINGS, IDENTITY_INDEX, inspectIdentity } from './attest';
import { splitTableDefinition, unquoteIdentifier } from './catalog-sqlite';

export type RebuildStage = 'created' | 'copied' | 'verified' | 'dropped' | 'renamed' | 'indexed';

export interface RebuildOptions {
  /** Test hook called after each stage, inside the transaction; throwing aborts the rebuild. */
  onStage?: (stage: RebuildStage) => void | Promise<void>;
}

export interface RebuildResult {
  rows: number;
  /** Schema reasons before the rebuild (what it repaired). */
  repaired: string[];
}

export class RebuildError extends Error {}

const TEMP = 'tasks_rebuild';
// SPEC §2.2, spelled exactly as prisma/sqlite/migrations/20261130000001_init/migration.sql does.
const CANONICAL_COLUMNS: Record<string, string> = {
  external_id: 'external_id text COLLATE BINARY',
  external_id_settled_at: 'external_id_settled_at text',
};
const CANONICAL_INDEX = `CREATE UNIQUE INDEX ${IDENTITY_INDEX} ON tasks (workspace_id, external_id COLLATE BINARY) WHERE external_id IS NOT NULL`;

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function rebuildSqliteTasksTable(db: SqliteDb, options: RebuildOptions = {}): Promise<RebuildResult> {
  const stage = async (s: RebuildStage) => options.onStage?.(s);
  // Foreign keys must be off while the table is swapped (a DROP would otherwise cascade into children) and
  // this pragma is a no-op inside a transaction, so it brackets it; foreign_key_check below re-verifies.
  await db.exec('PRAGMA foreign_keys = OFF');
  try {
    return await db.transaction(async (tx) => {
      const before = await inspectIdentity(tx);
      const table = await tx.one<{ sql: string }>(
        `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tasks'`,
      );
      if (!table) throw new RebuildError('cannot rebuild tasks: the table does not exist (run the migrations)');
      const def = splitTableDefinition(table.sql);
      if (/without\s+rowid/i.test(def.tail))
        throw new RebuildError('cannot rebuild tasks: WITHOUT ROWID tables are not supported');
      for (const name of Object.keys(CANONICAL_COLUMNS)) {
        if (!def.columns.some((c) => c.name === name))
          throw new RebuildError(`cannot rebuild tasks: column ${name} is missing (run the migrations)`);
      }
      const dependents = await tx.query<{ type: string; name: string; sql: string }>(
        `SELECT type, name, sql FROM sqlite_master
          WHERE sql IS NOT NULL AND ((tbl_name = 'tasks' AND type IN ('index', 'trigger')) OR type = 'view')
          ORDER BY CASE type WHEN 'index' THEN 0 WHEN 'trigger' THEN 1 ELSE 2 END, name`,
      );
      const xinfo = await tx.query<{ name: string; hidden: number }>(
        `SELECT name, hidden FROM pragma_table_xinfo('tasks')`,
      );
      // Generated columns (hidden 2/3) are recomputed, not copied.
      const copied = xinfo.filter((c) => c.hidden === 0).map((c) => c.name);

      // 1. The correct table, every other column and constraint verbatim.
      const columns = def.columns.map((c) => CANONICAL_COLUMNS[c.name] ?? c.definition);
      await tx.run(`CREATE TABLE ${TEMP} (\n  ${[...columns, ...def.constraints].join(',\n  ')}\n)${def.tail}`);
      await stage('created');

      // 2. Copy every column, rowid included so the row-by-row comparison can pair rows.
      const list = ['rowid', ...copied.map(q)].join(', ');
      await tx.run(`INSERT INTO ${TEMP} (${list}) SELECT ${list} FROM tasks`);
      await stage('copied');

      // 3. Verify: same count, and every row equal byte for byte (BINARY, whatever the old collation) and
      //    of the same storage class (1 and '1' and 1.0 are different values).
      const total = Number((await tx.one<{ n: unknown }>('SELECT COUNT(*) AS n FROM tasks'))?.n);
      const copiedCount = Number((await tx.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${TEMP}`))?.n);
      const same = copied
        .map((c) => `(o.${q(c)} IS n.${q(c)} COLLATE BINARY AND typeof(o.${q(c)}) = typeof(n.${q(c)}))`)
        .join(' AND ');
      const equal = Number(
        (
          await tx.one<{ n: unknown }>(
            `SELECT COUNT(*) AS n FROM tasks o JOIN ${TEMP} n ON n.rowid = o.rowid WHERE ${same || '1'}`,
          )
        )?.n,
      );
      if (copiedCount !== total || equal !== total) {
        throw new RebuildError(
          `tasks rebuild verification failed: ${total} rows, ${copiedCount} copied, ${equal} identical`,
        );
      }
      await stage('verified');

      // 4. Swap. Views are dropped and recreated because a rename re-checks every view that names the table.
      for (const v of dependents.filter((d) => d.type === 'view')) await tx.run(`DROP VIEW ${q(v.name)}`);
      await tx.run('DROP TABLE tasks');
      await stage('dropped');
      await tx.run(`ALTER TABLE ${TEMP} RENAME TO tasks`);
      await stage('renamed');

      // 5. Every index and trigger tasks had, with the identity index in its SPEC §2.2 form.
      for (const d of dependents) {
        if (d.type === 'index' && unquoteIdentifier(d.name) === IDENTITY_INDEX) continue;
        await tx.run(d.sql);
      }
      await tx.run(CANONICAL_INDEX);
      await stage('indexed');

      // 6. Re-attest inside the transaction: commit only a schema that passes. Legacy rows are data for an
      //    operator to resolve, not a reason to refuse the swap.
      const after = (await inspectIdentity(tx)).findings.filter((f) => f.code !== 'legacy');
      if (after.length > 0)
        throw new RebuildError(`tasks rebuild did not attest: ${after.map((f) => f.reason).join('; ')}`);
      const violations = await tx.query('SELECT * FROM pragma_foreign_key_check');
      if (violations.length > 0)
        throw new RebuildError(`tasks rebuild left ${violations.length} foreign key violation(s)`);
      return { rows: total, repaired: before.findings.filter((f) => f.code !== 'legacy').map((f) => f.reason) };
    });
  } finally {
    await db.exec('PRAGMA foreign_keys = ON');
  }
}

/** True when `tasks` fails attestation for a collation reason: the case migrate() repairs by itself. */
export async function needsSqliteRebuild(db: Sql): Promise<boolean> {
  const { findings } = await inspectIdentity(db);
  return findings.some((f) => COLLATION_FINDINGS.includes(f.code));
}
