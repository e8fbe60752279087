// SPEC §9 "at-least-once, in order": which events are final. An event is stored with its revision, whose `seq` is
// drawn when the row is inserted, not when its transaction commits, so on PostgreSQL seq 11 can be visible while seq
// 10 is still uncommitted. A reader that moved past 10 would lose it. The horizon closes that gap without touching writers:
//   sample: in ONE statement snapshot, read max(seq) = M and the snapshot's xmax X (first unassigned xid).
//   Any row with seq < M that this snapshot cannot see belongs to a transaction that was running then (it drew its
//   seq before M's transaction did, and already held an xid — see the invariant in the events repository), so its
//   xid < X. Once a later snapshot's xmin >= X, every such transaction has ended: every row with seq <= M is final.
// SQLite has one writer at a time and AUTOINCREMENT rolls back with the transaction: every visible max(seq) is
// final at once (its samples carry xmin = xmax = 0, which `isSettled` accepts immediately).
// How a sample is taken is the events repository's (db/repositories/events.ts; PostgreSQL: dialect/postgres/events.ts).

export interface HorizonSample {
  maxSeq: number;
  /** Lowest xid still running when sampled (PostgreSQL; 0 on SQLite). */
  xmin: bigint;
  /** First xid not yet assigned when sampled (PostgreSQL; 0 on SQLite). */
  xmax: bigint;
}

/** What the horizon needs from the data layer (`store.events`). */
export interface HorizonSampler {
  sampleHorizon(): Promise<HorizonSample>;
}

/** Whether every row with seq <= `candidate.maxSeq` is final, judged by a later sample `now`. */
export function isSettled(candidate: HorizonSample, now: HorizonSample): boolean {
  return now.xmin >= candidate.xmax;
}

/**
 * A seq up to which every event is final (one-shot, for readers without a running relay). Waits briefly for
 * transactions that were in flight; after `timeoutMs` it returns the highest bound it did prove (maybe lower).
 */
export async function settledHighWater(events: HorizonSampler, timeoutMs = 2_000): Promise<number> {
  const first = await events.sampleHorizon();
  if (isSettled(first, first)) return first.maxSeq;
  const end = Date.now() + timeoutMs;
  let pending = [first];
  let proven = 0;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 10));
    const now = await events.sampleHorizon();
    if (isSettled(first, now)) return first.maxSeq;
    for (const p of pending) if (isSettled(p, now)) proven = Math.max(proven, p.maxSeq);
    pending = [...pending.filter((p) => !isSettled(p, now)), now];
  }
  return proven;
}
