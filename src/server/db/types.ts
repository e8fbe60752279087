// The one database seam every repository is written against (STYLE habits 7 and 10).
// SQL is written once with PostgreSQL-style `$1` placeholders; each dialect adapts it.
export type Dialect = 'sqlite' | 'postgres';
export type Row = Record<string, unknown>;

/** Counters the benchmark reads to report statements and transactions per request. */
export interface DbStats {
  statements: number;
  writes: number;
  transactions: number;
}

export interface Sql {
  readonly dialect: Dialect;
  /** Rows of a statement that returns rows. */
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** First row or undefined. */
  one<T = Row>(text: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs a statement and returns the number of rows it changed. */
  run(text: string, params?: readonly unknown[]): Promise<number>;
}

/** How busy the connections are (metrics: pool saturation). SQLite has one connection and a queue in front of it. */
export interface PoolStats {
  max: number;
  /** Connections open. */
  total: number;
  /** Open and not in use. */
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export interface Db extends Sql {
  readonly url: string;
  readonly stats: DbStats;
  poolStats(): PoolStats;
  /** Runs `fn` in one transaction (SQLite: BEGIN IMMEDIATE). Throwing rolls it back. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /** Runs a multi-statement script outside any parameter binding (migrations, tests). */
  exec(script: string): Promise<void>;
  /** Calls `listener` when a statement meets a missing database or table (readiness re-attests); returns the
   *  unsubscribe. */
  onSchemaMissing(listener: () => void): () => void;
  /**
   * Proves the database serves this process now, writes included (health, SPEC §12): PostgreSQL answers a round trip
   * on a node that accepts writes; SQLite answers a read and commits a write (a full disk, an I/O error or a read-only
   * file refuses it). Throws DatabaseUnavailable (db/errors.ts) when it does not.
   */
  probe(): Promise<void>;
  close(): Promise<void>;
}

/** An error the database raised, reduced to what the domain needs to decide. */
export interface DbErrorInfo {
  uniqueViolation: boolean;
  /** The unique index (PostgreSQL) or column list (SQLite) the violation names. */
  target?: string;
  /** The database cannot be reached or refuses work for now (db/errors.ts): the surface answers 503. */
  unavailable: boolean;
  /**
   * The database or a table is gone (dropped, or re-created empty): also `unavailable`, and readiness re-attests
   * at once instead of vouching for a schema that is no longer there (SPEC §12).
   */
  schemaMissing?: boolean;
  /** A text value the database cannot hold (U+0000): the caller's input, so the surface answers 400. */
  invalidText?: boolean;
}

/**
 * PostgreSQL cannot store or even compare a string containing U+0000 (SQLSTATE 22021), so no dialect accepts
 * one: SQLite refuses it up front with this error, and both map to the same 400 (SPEC §12: one behaviour).
 */
export class InvalidTextError extends Error {
  constructor() {
    super('text parameter contains U+0000');
    this.name = 'InvalidTextError';
  }
}
