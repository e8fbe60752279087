/** A FIFO async mutex: `run` executes its function only after every earlier holder has let go. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /**
   * Waits for the mutex and holds it until the returned function is called — for a holder whose end is not one
   * function's end (a Prisma interactive transaction on the shared SQLite connection: start … commit).
   */
  async lock(): Promise<() => void> {
    let unlock!: () => void;
    const held = new Promise<void>((r) => (unlock = r));
    const acquired = this.tail.then(() => undefined);
    this.tail = acquired.then(() => held);
    await acquired;
    return unlock;
  }
}
