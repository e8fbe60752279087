// Everything that differs between the dialects lives under this folder (STYLE habit 10): the drivers
// (postgres/driver.ts, sqlite/driver.ts), catalog reads for attestation, error classification, how Prisma Client
// reaches each database, and the faster forms a dialect has for some repository methods (postgres/*.ts). Code
// outside db/ never asks which dialect it runs on.
import type { Db, DbErrorInfo, Dialect } from '../types';
import { PostgresDb, postgresErrorInfo, type PostgresOptions } from './postgres/driver';
import { SqliteDb, sqliteErrorInfo } from './sqlite/driver';

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

/**
 * What a database error means to the domain, on either dialect, whether it came from the driver or through
 * Prisma Client (which wraps the driver's error: its `cause` chain leads to the original).
 */
export function dbErrorInfo(err: unknown): DbErrorInfo | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const info = prismaErrorInfo(e) ?? postgresErrorInfo(e) ?? sqliteErrorInfo(e);
    if (info) return info;
  }
  return undefined;
}

/** Prisma's own codes for a database it cannot reach (P1001 unreachable, P1002 timed out, P1008 operation timed
 *  out, P1017 connection closed, P2024 pool timeout), a unique violation (P2002), and driver-adapter error kinds.
 *  Other Prisma request errors say nothing more here: undefined lets the `cause` chain be searched. */
function prismaErrorInfo(err: unknown): DbErrorInfo | undefined {
  const e = err as { code?: unknown; name?: unknown; meta?: Record<string, unknown>; cause?: { kind?: unknown; originalCode?: unknown } };
  if (typeof e?.code === 'string' && /^P\d{4}$/.test(e.code)) {
    if (['P1001', 'P1002', 'P1008', 'P1017', 'P2024'].includes(e.code)) return { uniqueViolation: false, unavailable: true };
    if (e.code === 'P2002') return { uniqueViolation: true, target: prismaTarget(e.meta), unavailable: false };
    return undefined;
  }
  if (e?.name === 'DriverAdapterError' && e.cause) {
    const original = e.cause.originalCode;
    if (typeof original === 'string') return postgresErrorInfo({ code: original }) ?? sqliteErrorInfo({ code: original, message: '' });
    if (e.cause.kind === 'SocketTimeout' || e.cause.kind === 'DatabaseNotReachable' || e.cause.kind === 'ConnectionClosed') {
      return { uniqueViolation: false, unavailable: true };
    }
  }
  return undefined;
}

/** The index (PostgreSQL) or `table.column, …` list (SQLite) a Prisma P2002 names, in the driver's words. */
function prismaTarget(meta: Record<string, unknown> | undefined): string | undefined {
  const cause = (meta?.driverAdapterError as { cause?: { constraint?: { index?: string; fields?: string[] }; table?: string } } | undefined)
    ?.cause;
  if (cause?.constraint?.index) return cause.constraint.index;
  if (cause?.constraint?.fields && cause.table) return cause.constraint.fields.map((f) => `${cause.table}.${f}`).join(', ');
  return typeof meta?.target === 'string' ? meta.target : undefined;
}

/**
 * SPEC §2.2: a unique violation means "identity taken" only when it is attributable to
 * `uniq_tasks_external_id` (PostgreSQL names the index; SQLite names the columns).
 */
export function isExternalIdViolation(err: unknown): boolean {
  const info = dbErrorInfo(err);
  if (!info?.uniqueViolation || !info.target) return false;
  return info.target === 'uniq_tasks_external_id' || info.target === 'tasks.workspace_id, tasks.external_id';
}
