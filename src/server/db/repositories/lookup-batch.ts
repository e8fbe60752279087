// Issue 4 — identity lookups that arrive together share one statement (PostgreSQL, db/statement-batch.ts). Each
// caller gets exactly the row its own single-row lookup would return. Semantics are the single lookup's: a
// read, one snapshot per statement, no writes (SPEC §4.1 step 5) — a Found still costs at most one statement.
import { StatementBatch } from '../statement-batch';
import type { Db, Row } from '../types';
import { jsonParam } from '../values';

/**
 * One JSON parameter keeps a single prepared statement for every batch size; `k_i` says whose row it is. The
 * LATERAL … LIMIT 1 cannot be flattened into a join, so each key is one probe of the identity index whatever the
 * planner believes about the table (a plain join chose a hash join over the whole table before ANALYZE).
 */
export function batchStatement(columns: string): string {
  return `SELECT k.i AS k_i, t.* FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS k(pair, i)
    CROSS JOIN LATERAL (
      SELECT ${columns} FROM tasks WHERE workspace_id = k.pair ->> 0 AND external_id = (k.pair ->> 1) COLLATE "C" LIMIT 1
    ) t`;
}

interface Key {
  workspaceId: string;
  externalId: string;
}

/** A lookup batch for `db`: `single` is the one-row statement (a batch of one uses it), `columns` its columns. */
export function lookupBatch(db: Db, single: string, columns: string): StatementBatch<Key, Row | undefined> {
  return new StatementBatch(async (keys) => {
    if (keys.length === 1) return [await db.one<Row>(single, [keys[0]!.workspaceId, keys[0]!.externalId])];
    const rows = await db.query<Row & { k_i: unknown }>(batchStatement(columns), [
      jsonParam(keys.map((k) => [k.workspaceId, k.externalId])),
    ]);
    const byIndex = new Map(rows.map(({ k_i, ...row }) => [Number(k_i), row]));
    return keys.map((_, i) => byIndex.get(i + 1));
  });
}
