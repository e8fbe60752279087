// The console's pulse (SPEC §13: unsettled identities and creation operations follow the truth within ~2 s). A
// create's Begin, its step progress, lease renewals, recovery takeovers and aborts send no event (SPEC §4.2, §9), and
// they may happen in another server process, so the console learns of them from the database: the open operations,
// summarized, read on the driver (it runs about once a second per server process with a console open).
// The WHERE clause is the predicate of idx_creation_operations_open word for word, so both dialects read only that
// partial index's rows — as many as the creates in flight, whatever the size of the workspaces.
import type { Sql } from '../types';
import { num, strOrNull } from '../values';

/** Per workspace and open state: how many, and the newest change, lease and generation sum among them. */
export interface OpenOperationsRow {
  workspaceId: string;
  state: string;
  count: number;
  /** Moves on every step change (each is fenced by touching the operation), release while preparing, takeover. */
  changedAt: string | null;
  /** Moves on every lease renewal. */
  leaseAt: string | null;
  /** Moves on every takeover. */
  generations: number;
}

export class PulseRepository {
  constructor(protected readonly sql: Sql) {}

  async openOperations(): Promise<OpenOperationsRow[]> {
    // No GROUP BY in SQL: SQLite would then walk idx_creation_operations_workspace (every operation ever) to avoid a
    // sort. The open rows are few; they are summed here.
    const rows = await this.sql.query<{
      workspace_id: unknown;
      state: unknown;
      updated_at: unknown;
      lease_expires_at: unknown;
      generation: unknown;
    }>(
      `SELECT workspace_id, state, updated_at, lease_expires_at, generation
       FROM creation_operations WHERE state IN ('preparing', 'completing', 'aborting')`,
    );
    const byKey = new Map<string, OpenOperationsRow>();
    for (const r of rows) {
      const workspaceId = String(r.workspace_id);
      const state = String(r.state);
      const key = `${workspaceId}\u0000${state}`;
      const row = byKey.get(key) ?? { workspaceId, state, count: 0, changedAt: null, leaseAt: null, generations: 0 };
      row.count++;
      row.changedAt = later(row.changedAt, strOrNull(r.updated_at));
      row.leaseAt = later(row.leaseAt, strOrNull(r.lease_expires_at));
      row.generations += num(r.generation);
      byKey.set(key, row);
    }
    return [...byKey.values()];
  }
}

/** ISO 8601 timestamps (both drivers read them so) order as text. */
function later(a: string | null, b: string | null): string | null {
  return a === null || (b !== null && b > a) ? b : a;
}
