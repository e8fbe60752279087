// SPEC §12 on PostgreSQL: read `tasks` and its indexes from the system catalog itself (pg_attribute,
// pg_index, pg_class, pg_collation), never from our own migration files, so a hand-edited schema is seen.
import type { CatalogColumn, CatalogIndex, IdentityCatalog } from './catalog';
import type { Sql } from '../types';

interface ColumnRow {
  name: string;
  type: string;
  nullable: boolean;
  collation: string | null;
  collation_schema: string | null;
  deterministic: boolean | null;
}

interface IndexRow {
  name: string;
  is_unique: boolean;
  is_valid: boolean;
  nkeys: number;
  predicate: string | null;
}

interface KeyRow {
  ord: number;
  column: string | null;
  collation: string | null;
  collation_schema: string | null;
}

function collationName(name: string | null, schema: string | null): string | null {
  if (name === null) return null;
  return schema === null || schema === 'pg_catalog' ? name : `${schema}.${name}`;
}

export async function readPostgresIdentityCatalog(db: Sql): Promise<IdentityCatalog> {
  // `tasks` as the application resolves it: through the search_path.
  const table = await db.one<{ oid: number | null }>(`SELECT to_regclass('tasks')::oid AS oid`);
  const oid = table?.oid ?? null;
  if (oid === null) return { tasksExists: false, columns: new Map(), indexes: [] };

  const columnRows = await db.query<ColumnRow>(
    `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable,
            co.collname AS collation, n.nspname AS collation_schema, co.collisdeterministic AS deterministic
       FROM pg_attribute a
       LEFT JOIN pg_collation co ON co.oid = a.attcollation
       LEFT JOIN pg_namespace n ON n.oid = co.collnamespace
      WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped`,
    [oid],
  );
  const columns = new Map<string, CatalogColumn>();
  for (const r of columnRows) {
    columns.set(r.name, {
      name: r.name,
      type: r.type,
      nullable: r.nullable,
      collation: collationName(r.collation, r.collation_schema) ?? 'none',
      deterministic: r.deterministic ?? true,
    });
  }

  const indexRows = await db.query<IndexRow & { oid: number }>(
    `SELECT x.indexrelid::oid AS oid, i.relname AS name, x.indisunique AS is_unique, (x.indisvalid AND x.indisready) AS is_valid,
            x.indnkeyatts AS nkeys, pg_get_expr(x.indpred, x.indrelid) AS predicate
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = $1`,
    [oid],
  );
  const indexes: CatalogIndex[] = [];
  for (const ix of indexRows) {
    // indkey lists every column (attnum 0 = expression); indcollation covers only the key columns.
    const keyRows = await db.query<KeyRow>(
      `SELECT k.ord::int AS ord, a.attname AS column, co.collname AS collation, n.nspname AS collation_schema
         FROM pg_index x
         CROSS JOIN LATERAL unnest(x.indkey::int2[], x.indcollation::oid[]) WITH ORDINALITY AS k(attnum, coll, ord)
         LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum AND k.attnum > 0
         LEFT JOIN pg_collation co ON co.oid = k.coll
         LEFT JOIN pg_namespace n ON n.oid = co.collnamespace
        WHERE x.indexrelid = $1
        ORDER BY k.ord`,
      [ix.oid],
    );
    const keys = keyRows.filter((k) => k.ord <= ix.nkeys);
    indexes.push({
      name: ix.name,
      unique: ix.is_unique,
      valid: ix.is_valid,
      keys: keys.map((k) => ({ column: k.column, collation: collationName(k.collation, k.collation_schema) })),
      included: keyRows.filter((k) => k.ord > ix.nkeys).map((k) => k.column ?? '<expression>'),
      predicate: ix.predicate,
    });
  }
  return { tasksExists: true, columns, indexes };
}
