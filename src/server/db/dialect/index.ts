// Everything that differs between the dialects lives under this folder (STYLE habit 10).
import type { Db, DbErrorInfo, Dialect } from '../types';
import { PostgresDb, postgresErrorInfo } from './postgres';
import { SqliteDb, sqliteErrorInfo } from './sqlite';

export { PostgresDb, SqliteDb };

export function dialectOf(url: string): Dialect {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite';
}

/** `file:./data/tether.db`, `sqlite:…` or a bare path → the file path. */
export function sqlitePath(url: string): string {
  return url.replace(/^(file|sqlite):(\/\/)?/i, '') || './data/tether.db';
}

export function openDb(url: string, options: { max?: number } = {}): Db {
  return dialectOf(url) === 'postgres' ? new PostgresDb(url, options) : new SqliteDb(url, sqlitePath(url));
}

export function dbErrorInfo(err: unknown): DbErrorInfo | undefined {
  return postgresErrorInfo(err) ?? sqliteErrorInfo(err);
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
