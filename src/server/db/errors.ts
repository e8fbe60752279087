// What a database error means, decided once for both dialects, whichever way it arrived: from `pg` or
// `better-sqlite3` directly, or through Prisma Client (which wraps the driver's error; its `cause` chain and
// `meta.driverAdapterError` lead to the original).
//
// SPEC §4.4: a database that cannot be reached, or that refuses writes for a reason outside the request — connection
// lost or refused, failover, a read-only node, an administrator shutdown, exhausted resources, a SQLite file that
// cannot be written (I/O error, disk full, read-only) or stays locked past the busy timeout — is never a fault of
// the request and never a permanent failure: whatever was in flight has an unknown outcome. The drivers raise all of
// these as one error, DatabaseUnavailable (dialect/*/driver.ts); every surface answers it 503
// `{"error":"database unavailable"}` with `Retry-After`, and the creation coordinator leaves the operation to recovery.
import type { DbErrorInfo } from './types';
import { InvalidTextError } from './types';

/**
 * The database is away or refuses work for now (see above). `cause` is the driver's own error, for the log; its text
 * never reaches a client.
 */
export class DatabaseUnavailable extends Error {
  /** The database or a table is gone (dropped, re-created empty): readiness re-attests at once (SPEC §12). */
  readonly schemaMissing: boolean;

  constructor(cause: unknown, schemaMissing = false) {
    super(`database unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'DatabaseUnavailable';
    this.schemaMissing = schemaMissing;
  }
}

/**
 * A fenced statement matched no row: the creation operation is owned by a newer generation (SPEC §4.2). Raised inside
 * a fenced transaction so that it rolls back whole; the creating request then waits for recovery's outcome, and a
 * recovery worker or cleanup pass that lost its claim stops. The domain raises it too, when the PostgreSQL
 * one-statement Complete reports the same finding.
 */
export class LeaseLostError extends Error {
  constructor(operationId: string) {
    super(`creation operation ${operationId} is now owned by a newer generation`);
    this.name = 'LeaseLostError';
  }
}

/** True when `err` means the database is unavailable (SPEC §4.4): the outcome of what was in flight is unknown. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return err instanceof DatabaseUnavailable || dbErrorInfo(err)?.unavailable === true;
}

/** `err` as the drivers raise it: a DatabaseUnavailable when it means one, anything else unchanged. */
export function asDatabaseError(err: unknown): unknown {
  if (err instanceof DatabaseUnavailable) return err;
  const info = dbErrorInfo(err);
  return info?.unavailable ? new DatabaseUnavailable(err, info.schemaMissing === true) : err;
}

/**
 * What a database error means to the domain, on either dialect, whether it came from the driver or through Prisma
 * Client. Undefined: not a database error at all.
 */
export function dbErrorInfo(err: unknown): DbErrorInfo | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    const info = classify(e);
    if (info) return info;
  }
  return undefined;
}

/**
 * SPEC §2.2: a unique violation means "identity taken" only when it is attributable to `uniq_tasks_external_id`
 * (PostgreSQL names the index; SQLite names the columns).
 */
export function isExternalIdViolation(err: unknown): boolean {
  const info = dbErrorInfo(err);
  if (!info?.uniqueViolation || !info.target) return false;
  return info.target === 'uniq_tasks_external_id' || info.target === 'tasks.workspace_id, tasks.external_id';
}

const UNAVAILABLE: DbErrorInfo = { uniqueViolation: false, unavailable: true };
const SCHEMA_MISSING: DbErrorInfo = { uniqueViolation: false, unavailable: true, schemaMissing: true };
const OTHER: DbErrorInfo = { uniqueViolation: false, unavailable: false };

function classify(err: unknown): DbErrorInfo | undefined {
  if (err instanceof DatabaseUnavailable) return err.schemaMissing ? SCHEMA_MISSING : UNAVAILABLE;
  if (err instanceof InvalidTextError) return { uniqueViolation: false, unavailable: false, invalidText: true };
  return prismaErrorInfo(err) ?? postgresErrorInfo(err) ?? sqliteErrorInfo(err);
}

// ---- PostgreSQL (pg) --------------------------------------------------------------------------------------------

/**
 * SQLSTATE classes and codes that mean the server cannot serve us now:
 *   08xxx connection exception; 53xxx insufficient resources (disk full, out of memory, too many connections);
 *   57P01 admin shutdown (`pg_terminate_backend`, a fast stop), 57P02 crash shutdown, 57P03 cannot connect now
 *   (starting up, shutting down, in recovery); 25006 read-only SQL transaction (a standby, or a primary demoted by a
 *   failover); 58030 I/O error.
 */
const PG_UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '25006', '58030']);
const PG_UNAVAILABLE_CLASSES = new Set(['08', '53']);

// 3D000 invalid_catalog_name (the database was dropped), 3F000 invalid_schema_name, 42P01 undefined_table (re-created
// empty, or never migrated): every statement fails until an operator restores the schema — an outage, not a bug in
// the request (SPEC §12: health turns not ready with the reason).
const PG_SCHEMA_MISSING = new Set(['3D000', '3F000', '42P01']);

/** Socket-level failures (Node's errno codes), for both pg and Prisma's pg adapter. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** pg raises a lost or timed-out connection as a plain Error with no code. */
const PG_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection closed|Client was closed and is not queryable/i;

function postgresErrorInfo(err: unknown): DbErrorInfo | undefined {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  if (typeof e?.code !== 'string') return e instanceof Error && PG_LOST.test(e.message) ? UNAVAILABLE : undefined;
  return (
    postgresCodeInfo(e.code, typeof e.constraint === 'string' ? e.constraint : undefined) ??
    (PG_LOST.test(String(e.message ?? '')) ? UNAVAILABLE : undefined)
  );
}

function postgresCodeInfo(code: string, constraint?: string): DbErrorInfo | undefined {
  if (code === '23505') return { uniqueViolation: true, target: constraint, unavailable: false };
  // 22021 character_not_in_repertoire (a NUL in a text parameter), 22P05 untranslatable_character.
  if (code === '22021' || code === '22P05') return { uniqueViolation: false, unavailable: false, invalidText: true };
  if (PG_SCHEMA_MISSING.has(code)) return SCHEMA_MISSING;
  if (SOCKET_CODES.has(code)) return UNAVAILABLE;
  if (!/^[0-9A-Z]{5}$/.test(code)) return undefined;
  return PG_UNAVAILABLE_CODES.has(code) || PG_UNAVAILABLE_CLASSES.has(code.slice(0, 2)) ? UNAVAILABLE : OTHER;
}

// ---- SQLite (better-sqlite3) ------------------------------------------------------------------------------------

/**
 * Primary result codes (better-sqlite3 reports the extended one, e.g. SQLITE_IOERR_WRITE, SQLITE_READONLY_DBMOVED)
 * that mean the file cannot serve us now: an I/O error, a full disk, a read-only file or medium, a lock held past
 * `busy_timeout`, a file that cannot be opened, a WAL locking protocol failure.
 */
const SQLITE_UNAVAILABLE = [
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
];

function sqliteErrorInfo(err: unknown): DbErrorInfo | undefined {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || !e.code.startsWith('SQLITE_')) return undefined;
  return sqliteCodeInfo(e.code, typeof e.message === 'string' ? e.message : '');
}

function sqliteCodeInfo(code: string, message: string): DbErrorInfo {
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // "UNIQUE constraint failed: tasks.workspace_id, tasks.external_id"
    const target = message.split('constraint failed: ')[1]?.trim();
    return { uniqueViolation: true, target, unavailable: false };
  }
  // The same outage as PostgreSQL's 42P01: the file was replaced by one without the schema.
  if (code === 'SQLITE_ERROR' && /^no such table: /.test(message)) return SCHEMA_MISSING;
  return SQLITE_UNAVAILABLE.some((c) => code === c || code.startsWith(`${c}_`)) ? UNAVAILABLE : OTHER;
}

// ---- Prisma Client ----------------------------------------------------------------------------------------------

/** Prisma's own codes for a database it cannot reach: P1001 unreachable, P1002 timed out, P1008 operation timed out,
 *  P1017 connection closed, P2024 pool timeout. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** Driver-adapter error kinds (@prisma/driver-adapter-utils) that mean the same. */
const ADAPTER_UNAVAILABLE = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TlsConnectionError',
]);
const ADAPTER_SCHEMA_MISSING = new Set(['DatabaseDoesNotExist', 'TableDoesNotExist']);

interface AdapterCause {
  kind?: unknown;
  originalCode?: unknown;
  originalMessage?: unknown;
  code?: unknown;
  constraint?: { index?: string; fields?: string[] };
  table?: string;
}

/**
 * A Prisma request error: its P-code, or the driver adapter's error it carries (`meta.driverAdapterError`), or a
 * DriverAdapterError itself. Other Prisma errors say nothing here: undefined lets the `cause` chain be searched.
 */
function prismaErrorInfo(err: unknown): DbErrorInfo | undefined {
  const e = err as { code?: unknown; name?: unknown; meta?: Record<string, unknown>; cause?: AdapterCause };
  if (typeof e?.code === 'string' && /^P\d{4}$/.test(e.code)) {
    const adapter = adapterErrorInfo((e.meta?.driverAdapterError as { cause?: AdapterCause } | undefined)?.cause);
    if (adapter)
      return e.code === 'P2002' && adapter.uniqueViolation
        ? { ...adapter, target: adapter.target ?? prismaTarget(e.meta) }
        : adapter;
    if (PRISMA_UNAVAILABLE.has(e.code)) return UNAVAILABLE;
    if (e.code === 'P2002') return { uniqueViolation: true, target: prismaTarget(e.meta), unavailable: false };
    return undefined;
  }
  if (e?.name === 'DriverAdapterError') return adapterErrorInfo(e.cause);
  return undefined;
}

function adapterErrorInfo(cause: AdapterCause | undefined): DbErrorInfo | undefined {
  if (!cause) return undefined;
  if (typeof cause.kind === 'string') {
    if (ADAPTER_UNAVAILABLE.has(cause.kind)) return UNAVAILABLE;
    if (ADAPTER_SCHEMA_MISSING.has(cause.kind)) return SCHEMA_MISSING;
    if (cause.kind === 'UniqueConstraintViolation')
      return { uniqueViolation: true, target: adapterTarget(cause), unavailable: false };
  }
  const original =
    typeof cause.originalCode === 'string'
      ? cause.originalCode
      : typeof cause.code === 'string'
        ? cause.code
        : undefined;
  if (original === undefined) return undefined;
  if (original.startsWith('SQLITE_'))
    return sqliteCodeInfo(original, typeof cause.originalMessage === 'string' ? cause.originalMessage : '');
  return postgresCodeInfo(original);
}

/** The index (PostgreSQL) or `table.column, …` list (SQLite) a unique violation names, in the driver's words. */
function adapterTarget(cause: AdapterCause): string | undefined {
  if (cause.constraint?.index) return cause.constraint.index;
  if (cause.constraint?.fields && cause.table)
    return cause.constraint.fields.map((f) => `${cause.table}.${f}`).join(', ');
  return undefined;
}

function prismaTarget(meta: Record<string, unknown> | undefined): string | undefined {
  return typeof meta?.target === 'string' ? meta.target : undefined;
}
