// Requests that need the same kind of statement at the same moment share one. Under load a server
// process handles many requests in one turn of its event loop; each item asked for in that turn waits until the
// turn ends (setImmediate: the I/O that was already readable is handled first), then all of them go out as ONE
// statement and each caller gets its own result. PostgreSQL's cost per statement (protocol, executor start,
// commit) and the client's (a socket write and read) are paid once per batch instead of once per request; the
// bench measured that per-statement cost at about half of a single-row insert (docs/BENCHMARKS.md).
//
// A batch is one statement, so it succeeds or fails whole. When a batch of several fails, every item is sent
// again on its own: each caller then gets exactly the answer (or the error) its own statement gives, and one bad
// item can never fail its neighbours. Except when the database is unavailable (db/errors.ts): the statement may have
// committed before the connection was lost, so sending it again could meet its own rows; every caller gets the
// DatabaseUnavailable instead — an unknown outcome, which the create protocol leaves to recovery (SPEC §4.4).
import { isDatabaseUnavailable } from '../../errors';

export type RunBatch<I, O> = (items: I[]) => Promise<O[]>;

interface Waiter<I, O> {
  item: I;
  resolve(out: O): void;
  reject(err: unknown): void;
}

/**
 * More than this many at once go out as several statements. Bounded so that a burst becomes a few statements in
 * flight together (PostgreSQL runs each on one core; measured: 8 kept both cores of the bench machine busy,
 * 64 made one long statement that the other core waited for).
 */
export const MAX_BATCH = 8;

export class StatementBatch<I, O> {
  private readonly queues = new Map<string, Array<Waiter<I, O>>>();
  private scheduled = false;

  /** `run` gets the items of one key (e.g. one workspace) and answers one result per item, in order. */
  constructor(private readonly run: RunBatch<I, O>) {}

  push(key: string, item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = []));
      queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queues = [...this.queues.values()];
    this.queues.clear();
    for (const queue of queues) {
      for (let i = 0; i < queue.length; i += MAX_BATCH) void this.send(queue.slice(i, i + MAX_BATCH));
    }
  }

  private async send(waiters: Array<Waiter<I, O>>): Promise<void> {
    try {
      const out = await this.run(waiters.map((w) => w.item));
      waiters.forEach((w, i) => w.resolve(out[i]!));
    } catch (err) {
      if (waiters.length === 1 || isDatabaseUnavailable(err)) return waiters.forEach((w) => w.reject(err));
      for (const w of waiters) this.run([w.item]).then((out) => w.resolve(out[0]!), w.reject);
    }
  }
}
