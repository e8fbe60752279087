// The data layer's ground floor: the drivers (postgres.ts, sqlite.ts) and what they stand on (topology, URLs,
// timestamps, the SQLite mutex, the schema alarm), the small SQL vocabulary repository SQL needs from its dialect,
// and `openDb`. Nothing here imports a repository. What else differs between the dialects — catalog reads for
// attestation, how Prisma Client reaches SQLite, the faster forms of some repositories — sits above the
// repositories in ../dialect/. What a driver's error means is decided in one place, ../errors.ts.
import type { Db, Dialect } from '../types';
import { PostgresDb, type PostgresOptions } from './postgres';
import { SqliteDb } from './sqlite';

export { PostgresDb, SqliteDb };

/** The small vocabulary repository SQL (written once) needs from its dialect. */
export interface SqlDialect {
  readonly name: Dialect;
  /** Appended to a SELECT whose rows must stay locked until commit. SQLite's BEGIN IMMEDIATE already holds the
   *  database's one write lock, so there it is empty. */
  readonly forUpdate: string;
  /** Appended to a SELECT that claims work several processes poll for: rows another claimer holds are skipped
   *  (PostgreSQL). SQLite runs one immediate transaction at a time, so there is nothing to skip. */
  readonly skipLocked: string;
  /** Where `needle` first occurs in `text`, counted in characters from 1; 0 when it does not (both are SQL). */
  position(needle: string, text: string): string;
  /**
   * `text` with ASCII letters lower-cased and every other character kept: SQLite's lower() does only that; on
   * PostgreSQL lower() under the "C" collation does the same, whatever the database's collation.
   */
  asciiLower(text: string): string;
}

export const POSTGRES: SqlDialect = {
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  position: (needle, text) => `strpos(${text}, ${needle})`,
  asciiLower: (text) => `lower(${text} COLLATE "C")`,
};
export const SQLITE: SqlDialect = {
  name: 'sqlite',
  forUpdate: '',
  skipLocked: '',
  position: (needle, text) => `instr(${text}, ${needle})`,
  asciiLower: (text) => `lower(${text})`,
};

export function sqlDialect(name: Dialect): SqlDialect {
  return name === 'postgres' ? POSTGRES : SQLITE;
}

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite';
}

/** `file:./data/tether.db`, `sqlite:…` or a bare path → the file path. */
export function sqlitePath(url: string): string {
  return url.replace(/^(file|sqlite):(\/\/)?/i, '') || './data/tether.db';
}

export function openDb(url: string, options: PostgresOptions = {}): Db {
  return dialectOf(url) === 'postgres' ? new PostgresDb(url, options) : new SqliteDb(url, sqlitePath(url));
}
