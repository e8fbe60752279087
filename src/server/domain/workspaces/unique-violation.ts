// "Let the database decide" (STYLE habit 8): uniqueness of prefixes, step positions and emails is enforced by
// unique indexes; code inserts and interprets the violation. PostgreSQL names the index, SQLite the columns.
import { dbErrorInfo } from '../../db/errors';

export function isUniqueViolationOf(err: unknown, index: string, sqliteColumns: string): boolean {
  const info = dbErrorInfo(err);
  return !!info?.uniqueViolation && (info.target === index || info.target === sqliteColumns);
}
