// Numbers the metrics endpoint reads at scrape time: unsettled identities and the oldest one's
// age, and how far the outbox runs ahead of what this process's relay has published. Each is one indexed
// aggregate on the driver, run only when Prometheus scrapes.
import type { Sql } from '../types';
import { num, strOrNull } from '../values';

export class StatsRepository {
  constructor(protected readonly sql: Sql) {}

  /** Tasks holding an identity that is not settled (in-flight creates and legacy rows), and the oldest one's start. */
  async unsettledIdentities(): Promise<{ count: number; oldestCreatedAt: string | null }> {
    const row = await this.sql.one<{ n: unknown; oldest: unknown }>(
      'SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM tasks WHERE external_id IS NOT NULL AND external_id_settled_at IS NULL',
    );
    return { count: num(row?.n ?? 0), oldestCreatedAt: strOrNull(row?.oldest) };
  }

  /** The newest event's seq (0 when there is none). */
  async outboxHead(): Promise<number> {
    const row = await this.sql.one<{ seq: unknown }>(
      'SELECT MAX(seq) AS seq FROM task_revisions WHERE event_type IS NOT NULL',
    );
    return num(row?.seq ?? 0);
  }

  /** When the first event after `seq` was written (undefined when there is none). */
  async firstEventAfter(seq: number): Promise<string | undefined> {
    const row = await this.sql.one<{ created_at: unknown }>(
      'SELECT created_at FROM task_revisions WHERE event_type IS NOT NULL AND seq > $1 ORDER BY seq LIMIT 1',
      [seq],
    );
    return strOrNull(row?.created_at) ?? undefined;
  }
}
