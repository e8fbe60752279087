// PostgreSQL's form of the horizon sample (SPEC §9, domain/events/horizon.ts). `task_revisions.seq` is drawn at
// insert, not at commit, so a visible max(seq) may have uncommitted rows below it. One statement reads max(seq) = M and, in the
// same snapshot, its xmin and xmax: every transaction that could still add a row below M has an xid < xmax, so a
// later sample whose xmin has reached this xmax proves every row up to M final. pg_current_snapshot() exists only
// here, so this is a subclass, chosen once by the Store (also inside transactions: it is a correctness form, not
// a faster one).
import type { HorizonSample } from '../../../domain/events/horizon';
import { EventRepository } from '../../repositories/events';
import type { Sql } from '../../types';
import { num } from '../../values';
import { POSTGRES } from '../../drivers/index';

export class PostgresEventRepository extends EventRepository {
  constructor(sql: Sql) {
    super(sql, POSTGRES);
  }

  override async sampleHorizon(): Promise<HorizonSample> {
    const row = await this.sql.one<{ m: unknown; xmin: string; xmax: string }>(
      `SELECT (SELECT COALESCE(MAX(seq), 0) FROM task_revisions) AS m,
              pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax
         FROM pg_current_snapshot() AS s`,
    );
    return { maxSeq: num(row?.m ?? 0), xmin: BigInt(row?.xmin ?? 0), xmax: BigInt(row?.xmax ?? 0) };
  }
}
