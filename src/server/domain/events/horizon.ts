// SPEC §9 "at-least-once, in order": which outbox rows are final. `seq` is drawn when a row is inserted, not when
// its transaction commits, so on PostgreSQL seq 11 can be visible while seq 10 is still uncommitted. A reader that
// moved past 10 would lose it. The horizon closes that gap without touching writers:
//   sample: in ONE statement snapshot, read max(seq) = M and the snapshot's xmax X (first unassigned xid).
//   Any row with seq < M that this snapshot cannot see belongs to a transaction that was running then (it drew its
//   seq before M's transaction did, and already held an xid — see the invariant in outbox.ts), so its xid < X.
//   Once a later snapshot's xmin >= X, every such transaction has ended: every row with seq <= M is final.
// SQLite has one writer at a time (BEGIN IMMEDIATE) and AUTOINCREMENT rolls back with the transaction: every
// visible max(seq) is final at once.
import type { Sql } from '../../db/types';
import { num } from '../../db/values';

export interface HorizonSample {
  maxSeq: number;
  /** Lowest xid still running when sampled (PostgreSQL; 0 on SQLite). */
  xmin: bigint;
  /** First xid not yet assigned when sampled (PostgreSQL; 0 on SQLite). */
  xmax: bigint;
}

export async function sampleHorizon(sql: Sql): Promise<HorizonSample> {
  if (sql.dialect === 'sqlite') {
    const row = await sql.one<{ m: unknown }>('SELECT COALESCE(MAX(seq), 0) AS m FROM outbox_events');
    return { maxSeq: num(row?.m ?? 0), xmin: 0n, xmax: 0n };
  }
  const row = await sql.one<{ m: unknown; xmin: string; xmax: string }>(
    `SELECT (SELECT COALESCE(MAX(seq), 0) FROM outbox_events) AS m,
            pg_snapshot_xmin(s)::text AS xmin, pg_snapshot_xmax(s)::text AS xmax
       FROM pg_current_snapshot() AS s`,
  );
  return { maxSeq: num(row?.m ?? 0), xmin: BigInt(row?.xmin ?? 0), xmax: BigInt(row?.xmax ?? 0) };
}

/** Whether every row with seq <= `candidate.maxSeq` is final, judged by a later sample `now`. */
export function isSettled(candidate: HorizonSample, now: HorizonSample): boolean {
  return now.xmin >= candidate.xmax;
}

/**
 * A seq up to which every event is final (one-shot, for readers without a running relay). Waits briefly for
 * transactions that were in flight; after `timeoutMs` it returns the highest bound it did prove (maybe lower).
 */
export async function settledHighWater(sql: Sql, timeoutMs = 2_000): Promise<number> {
  const first = await sampleHorizon(sql);
  if (sql.dialect === 'sqlite' || isSettled(first, first)) return first.maxSeq;
  const end = Date.now() + timeoutMs;
  let pending = [first];
  let proven = 0;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 10));
    const now = await sampleHorizon(sql);
    if (isSettled(first, now)) return first.maxSeq;
    for (const p of pending) if (isSettled(p, now)) proven = Math.max(proven, p.maxSeq);
    pending = [...pending.filter((p) => !isSettled(p, now)), now];
  }
  return proven;
}
