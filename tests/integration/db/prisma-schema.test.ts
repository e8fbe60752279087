// The Prisma schemas (prisma/<dialect>/schema.prisma) must describe the tables the migrations make: every
// model reads a seeded row of its table on a migrated database, so a wrong column name or type fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../../../src/generated/prisma-postgres/client';
import { createPrisma } from '../../../src/server/db/prisma';
import type { Db } from '../../../src/server/db/types';
import { freshDb, testDialect } from '../../support/db';

const dialect = testDialect();

interface Column {
  table: string;
  name: string;
  type: string;
}

async function columns(db: Db): Promise<Column[]> {
  return dialect === 'postgres'
    ? db.query<Column>(
        `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
           FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
          WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
          ORDER BY c.relname, a.attnum`,
      )
    : db.query<Column>(
        `SELECT m.name AS "table", p.name AS name, p.type AS type FROM sqlite_master m, pragma_table_xinfo(m.name) p
          WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid`,
      );
}

/** table → tables it references, so parents are seeded first (foreign keys stay on). */
async function references(db: Db): Promise<Array<{ child: string; parent: string }>> {
  return dialect === 'postgres'
    ? db.query(
        `SELECT conrelid::regclass::text AS child, confrelid::regclass::text AS parent FROM pg_constraint WHERE contype = 'f'`,
      )
    : db.query(
        `SELECT m.name AS child, f."table" AS parent FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'`,
      );
}

/** A value of the column's type. Every id-like text is 'x', so each foreign key finds its one parent row. */
function valueFor(c: Column, now: string): unknown {
  const type = c.type.toLowerCase();
  if (type.includes('timestamp') || /(^|_)at$/.test(c.name)) return now; // `created_at`, and creation_history's `at`
  if (type.includes('bool')) return true;
  if (type.includes('int') || type.includes('serial')) return 1;
  return 'x';
}

describe('Prisma schema matches the migrated tables', () => {
  let db: Db;
  beforeAll(async () => {
    db = await freshDb();
    const cols = await columns(db);
    const edges = (await references(db)).filter((e) => e.child !== e.parent);
    const tables = [...new Set(cols.map((c) => c.table))].filter((t) => t !== '_prisma_migrations');
    const done = new Set<string>();
    const now = new Date().toISOString();
    while (done.size < tables.length) {
      const ready = tables.filter(
        (t) => !done.has(t) && edges.every((e) => e.child !== t || done.has(e.parent) || !tables.includes(e.parent)),
      );
      if (ready.length === 0) throw new Error('foreign key cycle between tables');
      for (const t of ready) {
        const own = cols.filter((c) => c.table === t);
        const placeholders = own.map((_c, i) => `$${i + 1}`).join(', ');
        await db.run(
          `INSERT INTO "${t}" (${own.map((c) => `"${c.name}"`).join(', ')}) VALUES (${placeholders})`,
          own.map((c) => valueFor(c, now)),
        );
        done.add(t);
      }
    }
  });
  afterAll(async () => db?.close());

  it.each(Object.values(Prisma.ModelName))('reads %s through Prisma', async (model) => {
    const prisma = await createPrisma(db);
    const delegate = (prisma as unknown as Record<string, { findMany(): Promise<unknown[]> }>)[
      model[0]!.toLowerCase() + model.slice(1)
    ]!;
    const rows = (await delegate.findMany()) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    // SQLite hands Prisma text for DateTime fields; a field mapped onto a non-timestamp column decodes as Invalid Date.
    const invalidDates = Object.entries(rows[0]!).filter(([, v]) => v instanceof Date && Number.isNaN(v.getTime()));
    expect(invalidDates).toEqual([]);
  });
});
