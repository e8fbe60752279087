// The in-process side of the relay (SPEC §9): the relay (runtime/relay.ts) advances `safe` — the seq up to which
// every outbox event is final (horizon.ts) — and wakes the live streams of this process. One hub per Services
// (`services.hub`).
import type { EventRecord } from '../../model/events';

interface Batch {
  /** Events with from < seq <= to, every workspace, in seq order. */
  from: number;
  to: number;
  events: EventRecord[];
}

export class EventHub {
  /** Undefined until the relay has proven its first bound. */
  safe: number | undefined;
  /** The last advance, so caught-up streams take their events from memory instead of the database. */
  last: Batch | undefined;
  /** The relay's last pass could not read the outbox: the database is unavailable, and a new stream would only wait
   *  (it answers 503 instead, SPEC §4.4). */
  databaseUnavailable = false;
  private waiters = new Set<() => void>();

  /** The relay's first bound: no events (everything up to it is history, read from the database). */
  start(safe: number): void {
    this.safe = safe;
    this.wake();
  }

  advance(batch: Batch): void {
    this.last = batch;
    this.safe = batch.to;
    this.wake();
  }

  /** Whether a live stream of this process is waiting for the next advance (and would take its events from memory). */
  get awaited(): boolean {
    return this.waiters.size > 0;
  }

  /**
   * Advances to `safe` without the events: nobody was waiting for them, and a stream that asks later reads them from
   * the database (stream.ts), as it does whenever `last` is not the batch it needs.
   */
  skipTo(safe: number): void {
    this.last = undefined;
    this.safe = safe;
    this.wake();
  }

  /** Resolves at the next advance, or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends every wait (relay stopping): streams see `stopped` and close. */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  stopped = false;

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/** The hub only if a relay runs in this process (history readers fall back to a one-shot horizon). */
export function runningHub(hub: EventHub): EventHub | undefined {
  return hub.safe !== undefined && !hub.stopped ? hub : undefined;
}
