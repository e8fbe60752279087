// Issue 4 — identity lookups that arrive together share one statement (PostgreSQL). Under load a server process
// reads many requests in one turn of its event loop; each used to send its own `SELECT … WHERE workspace_id = $1
// AND external_id = $2`, paying a client round trip, a socket write and the statement overhead in PostgreSQL
// each time. Here every lookup asked for in the same turn waits until the turn ends (setImmediate: the I/O that
// was already readable is handled first) and then goes out with the others as ONE statement over the same unique
// index, each answer handed back to its own caller. A lone lookup is sent on its own, with the single-row
// statement, after the same short hop. Semantics are the single lookup's: a read, one snapshot per statement, no
// writes (SPEC §4.1 step 5) — a Found still costs at most one statement.
import type { Db, Row } from '../types';

interface Waiter {
  workspaceId: string;
  externalId: string;
  resolve(row: Row | undefined): void;
  reject(err: unknown): void;
}

/** More than this many at once go out as several statements (bounded statement size and plan shape). */
const MAX_BATCH = 64;

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

export class LookupBatcher {
  private waiting: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    private readonly single: string,
    private readonly columns: string,
  ) {}

  find(workspaceId: string, externalId: string): Promise<Row | undefined> {
    // PostgreSQL refuses a NUL in text for the whole statement: such a value must not fail its neighbours.
    if (workspaceId.includes('\u0000') || externalId.includes('\u0000')) return this.db.one<Row>(this.single, [workspaceId, externalId]);
    return new Promise((resolve, reject) => {
      this.waiting.push({ workspaceId, externalId, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.waiting;
    this.waiting = [];
    for (let i = 0; i < all.length; i += MAX_BATCH) void this.send(all.slice(i, i + MAX_BATCH));
  }

  private async send(batch: Waiter[]): Promise<void> {
    try {
      if (batch.length === 1) {
        const w = batch[0]!;
        w.resolve(await this.db.one<Row>(this.single, [w.workspaceId, w.externalId]));
        return;
      }
      const rows = await this.db.query<Row & { k_i: unknown }>(batchStatement(this.columns), [
        JSON.stringify(batch.map((w) => [w.workspaceId, w.externalId])),
      ]);
      const byIndex = new Map(rows.map((r) => [Number(r.k_i), r]));
      batch.forEach((w, i) => {
        const row = byIndex.get(i + 1);
        if (row) delete row.k_i;
        w.resolve(row);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }
}
