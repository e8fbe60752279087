// Issue 18: when a statement fails because the database or one of its tables is gone (dropped, re-created empty),
// readiness must stop vouching for the schema at once rather than at its next periodic check. Each driver owns one
// alarm and rings it for such failures; readiness.watch() listens (one per Db, no module state).
import type { DbErrorInfo } from './types';

export class SchemaAlarm {
  private readonly listeners = new Set<() => void>();

  /** Calls `listener` whenever a statement meets a missing database or table; returns the unsubscribe. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rings when `info` (the driver's reading of an error) says the schema is missing. */
  check(info: DbErrorInfo | undefined): void {
    if (info?.schemaMissing) for (const listener of [...this.listeners]) listener();
  }
}
