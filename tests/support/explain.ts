// A statement's plan as one text, to hold a query to the index it must use: PostgreSQL's EXPLAIN, SQLite's EXPLAIN
// QUERY PLAN (each line's detail).
import type { Statement } from '../../src/server/db/repositories/browse-sql';
import type { Db } from '../../src/server/db/types';

export async function explain(db: Db, s: Statement): Promise<string> {
  if (db.dialect === 'postgres') {
    const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${s.text}`, s.params);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }
  const rows = await db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.text}`, s.params);
  return rows.map((r) => r.detail).join('\n');
}
