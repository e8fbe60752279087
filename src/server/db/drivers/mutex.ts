/** A FIFO async mutex: `run` executes its function only after every earlier holder has let go. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  /** Holders and waiters right now (metrics: one holds it, the rest wait). */
  queued = 0;

  run<T>(fn: () => T | Promise<T>): Promise<T> {
    this.queued++;
    const result = this.tail.then(fn, fn);
    this.tail = result.then(
      () => void this.queued--,
      () => void this.queued--,
    );
    return result;
  }

  /**
   * Waits for the mutex and holds it until the returned function is called — for a holder whose end is not one
   * function's end (a Prisma interactive transaction on the shared SQLite connection: start … commit).
   */
  async lock(): Promise<() => void> {
    let unlock!: () => void;
    this.queued++;
    const held = new Promise<void>((r) => (unlock = r));
    const acquired = this.tail.then(() => undefined);
    this.tail = acquired.then(() => held).then(() => void this.queued--);
    await acquired;
    return unlock;
  }
}
