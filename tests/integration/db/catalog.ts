// The real catalog of a database in one neutral shape, for the tests that hold the Prisma schema, the migrations
// and the database to each other (SPEC §12). PostgreSQL from pg_catalog / information_schema (the columns Prisma's
// own describer reads); SQLite from its pragmas, with collations and predicates parsed from sqlite_master as the
// attestation does (db/schema/catalog-sqlite.ts).
import { declaredCollation, indexPredicate, splitTableDefinition } from '../../../src/server/db/schema/catalog-sqlite';
import { normalizePredicate } from '../../../src/server/db/schema/attest';
import type { Sql } from '../../../src/server/db/types';

export interface CatalogColumn {
  name: string;
  /** PostgreSQL: information_schema data_type (+ precision for timestamps); SQLite: the declared type, lower-cased. */
  type: string;
  nullable: boolean;
  default: string | null;
  /** null = the type's default collation. */
  collation: string | null;
  /** PostgreSQL: a serial's nextval default; SQLite: `INTEGER PRIMARY KEY AUTOINCREMENT`. */
  autoincrement: boolean;
}

export interface CatalogIndex {
  name: string;
  unique: boolean;
  columns: string[];
  /** Per key column; null = the column's own collation. */
  collations: Array<string | null>;
  predicate: string | null;
}

export interface CatalogForeignKey {
  columns: string[];
  table: string;
  references: string[];
  onDelete: string;
  onUpdate: string;
  /** PostgreSQL only: SQLite keeps no constraint names. */
  name: string | null;
}

export interface CatalogTable {
  name: string;
  columns: CatalogColumn[];
  primaryKey: string[];
  indexes: CatalogIndex[];
  foreignKeys: CatalogForeignKey[];
}

const ACTIONS: Record<string, string> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

export async function readCatalog(db: Sql): Promise<Map<string, CatalogTable>> {
  const tables = db.dialect === 'postgres' ? await readPostgres(db) : await readSqlite(db);
  return new Map(tables.sort((a, b) => a.name.localeCompare(b.name)).map((t) => [t.name, t]));
}

async function readPostgres(db: Sql): Promise<CatalogTable[]> {
  const names = await db.query<{ name: string }>(
    `SELECT c.relname::text AS name FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`,
  );
  const out: CatalogTable[] = [];
  for (const { name } of names) {
    const columns = await db.query<{
      name: string;
      data_type: string;
      precision: number | null;
      nullable: string;
      default: string | null;
      collation: string | null;
    }>(
      `SELECT column_name AS name, data_type, datetime_precision AS precision, is_nullable AS nullable,
              column_default AS default, collation_name AS collation
         FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [name],
    );
    const pk = await db.one<{ cols: string[] }>(
      `SELECT array_agg(a.attname::text ORDER BY k.i) AS cols
         FROM pg_constraint c, unnest(c.conkey) WITH ORDINALITY k(attnum, i), pg_attribute a
        WHERE c.conrelid = $1::regclass AND c.contype = 'p' AND a.attrelid = c.conrelid AND a.attnum = k.attnum`,
      [name],
    );
    const indexes = await db.query<{
      name: string;
      unique: boolean;
      columns: string[];
      collations: Array<string | null>;
      predicate: string | null;
    }>(
      `SELECT ic.relname::text AS name, i.indisunique AS unique,
              array_agg(a.attname::text ORDER BY k.i) AS columns,
              array_agg(CASE WHEN k.coll = 0 OR k.coll = a.attcollation THEN NULL ELSE (SELECT collname::text FROM pg_collation WHERE oid = k.coll) END ORDER BY k.i) AS collations,
              pg_get_expr(i.indpred, i.indrelid) AS predicate
         FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid,
              unnest(i.indkey::int2[], i.indcollation::oid[]) WITH ORDINALITY k(attnum, coll, i), pg_attribute a
        WHERE i.indrelid = $1::regclass AND NOT i.indisprimary AND a.attrelid = i.indrelid AND a.attnum = k.attnum
        GROUP BY ic.relname, i.indisunique, i.indpred, i.indrelid`,
      [name],
    );
    const fks = await db.query<{
      name: string;
      columns: string[];
      table: string;
      references: string[];
      del: string;
      upd: string;
    }>(
      `SELECT c.conname::text AS name, c.confrelid::regclass::text AS table, c.confdeltype AS del, c.confupdtype AS upd,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
                 JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
              (SELECT array_agg(a.attname::text ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
                 JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS references
         FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype = 'f'`,
      [name],
    );
    out.push({
      name,
      columns: columns.map((c) => ({
        name: c.name,
        type: c.data_type.startsWith('timestamp') ? `${c.data_type}(${c.precision})` : c.data_type,
        nullable: c.nullable === 'YES',
        default: c.default,
        collation: c.collation,
        autoincrement: /^nextval\(/.test(c.default ?? ''),
      })),
      primaryKey: pk?.cols ?? [],
      indexes: indexes
        .map((i) => ({ ...i, predicate: i.predicate === null ? null : normalizePredicate(i.predicate) }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: fks
        .map((f) => ({
          name: f.name,
          columns: f.columns,
          table: f.table,
          references: f.references,
          onDelete: ACTIONS[f.del]!,
          onUpdate: ACTIONS[f.upd]!,
        }))
        .sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
    });
  }
  return out;
}

async function readSqlite(db: Sql): Promise<CatalogTable[]> {
  const tables = await db.query<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
  );
  const out: CatalogTable[] = [];
  for (const { name, sql } of tables) {
    const definitions = splitTableDefinition(sql).columns;
    const collations = new Map(definitions.map((c) => [c.name, declaredCollation(c.definition)]));
    const autoincrement = new Set(
      definitions.filter((c) => /\bPRIMARY\s+KEY\s+AUTOINCREMENT\b/i.test(c.definition)).map((c) => c.name),
    );
    const info = await db.query<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
      `SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info($1) ORDER BY cid`,
      [name],
    );
    const list = await db.query<{ name: string; unique: number; origin: string }>(
      `SELECT name, "unique", origin FROM pragma_index_list($1)`,
      [name],
    );
    const indexes: CatalogIndex[] = [];
    // origin 'pk' is the index SQLite makes for a non-rowid PRIMARY KEY: the primary key, not a declared index.
    for (const ix of list.filter((i) => i.origin !== 'pk')) {
      const keys = await db.query<{ name: string; coll: string; cid: number }>(
        `SELECT name, coll, cid FROM pragma_index_xinfo($1) WHERE key = 1 ORDER BY seqno`,
        [ix.name],
      );
      const created = await db.one<{ sql: string | null }>(
        `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = $1`,
        [ix.name],
      );
      const predicate = created?.sql ? indexPredicate(created.sql) : null;
      indexes.push({
        name: ix.name,
        unique: Boolean(ix.unique),
        columns: keys.map((k) => k.name),
        collations: keys.map((k) =>
          k.coll.toUpperCase() === (collations.get(k.name) ?? 'BINARY') ? null : k.coll.toUpperCase(),
        ),
        predicate: predicate === null ? null : normalizePredicate(predicate),
      });
    }
    const fks = await db.query<{
      id: number;
      seq: number;
      table: string;
      from: string;
      to: string;
      on_update: string;
      on_delete: string;
    }>(
      `SELECT id, seq, "table", "from", "to", on_update, on_delete FROM pragma_foreign_key_list($1) ORDER BY id, seq`,
      [name],
    );
    const byId = new Map<number, CatalogForeignKey>();
    for (const f of fks) {
      const fk = byId.get(f.id) ?? {
        name: null,
        columns: [],
        table: f.table,
        references: [],
        onDelete: f.on_delete,
        onUpdate: f.on_update,
      };
      fk.columns.push(f.from);
      fk.references.push(f.to);
      byId.set(f.id, fk);
    }
    out.push({
      name,
      columns: info.map((c) => ({
        name: c.name,
        type: c.type.toLowerCase(),
        nullable: !c.notnull,
        default: c.dflt_value,
        // BINARY is SQLite's default collation: declaring it changes nothing.
        collation: (collations.get(c.name) ?? 'BINARY') === 'BINARY' ? null : collations.get(c.name)!,
        autoincrement: autoincrement.has(c.name),
      })),
      primaryKey: info
        .filter((c) => c.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((c) => c.name),
      indexes: indexes.sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: [...byId.values()].sort((a, b) => a.columns.join().localeCompare(b.columns.join())),
    });
  }
  return out;
}

/** SQLite's type affinity of a declared type (https://sqlite.org/datatype3.html §3.1), in its rule order. */
export function sqliteAffinity(declared: string): 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC' {
  const t = declared.toUpperCase();
  if (t.includes('INT')) return 'INTEGER';
  if (t.includes('CHAR') || t.includes('CLOB') || t.includes('TEXT')) return 'TEXT';
  if (t === '' || t.includes('BLOB')) return 'BLOB';
  if (t.includes('REAL') || t.includes('FLOA') || t.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}
