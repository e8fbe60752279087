// When a statement fails because the database or one of its tables is gone (dropped, re-created empty), readiness
// must stop vouching for the schema at once rather than at its next periodic check (SPEC §12). Each driver owns one
// alarm and rings it for such failures; readiness.watch() listens (one per Db, no module state).
import { DatabaseUnavailable } from '../errors';

export class SchemaAlarm {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` whenever a statement meets a missing database or table; returns the unsubscribe. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rings when `err` (as the driver raises it, db/errors.ts) says the schema is missing; returns `err`. */
  check(err: unknown): unknown {
    if (err instanceof DatabaseUnavailable && err.schemaMissing) for (const listener of [...this.listeners]) listener();
    return err;
  }
}
