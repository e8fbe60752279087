// Row values come back slightly differently per dialect (SQLite: 0/1 and ISO text; PostgreSQL: booleans and,
// with our type parsers, ISO text). These helpers make one mapping work for both.
export function str(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}
export function strOrNull(v: unknown): string | null {
  return v === null || v === undefined ? null : str(v);
}
export function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}
export function numOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : num(v);
}
export function bool(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 't';
}
export function json<T>(v: unknown): T {
  return (typeof v === 'string' ? JSON.parse(v) : v) as T;
}

/**
 * A JSON text for a `$n::jsonb` parameter that carries strings exactly as text parameters would: the driver
 * sends a text parameter as UTF-8, where a lone UTF-16 surrogate becomes U+FFFD, but JSON.stringify writes it as
 * a `\udXXX` escape, which PostgreSQL's JSON parser refuses. So strings are made well-formed first (the
 * batched statements' JSON parameters; found by the REST fuzz test).
 */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'string' ? v.toWellFormed() : v));
}

/** `$from, $from+1, …` — `n` placeholders for an `IN (…)` list. */
export function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

/**
 * JSON text with holes for values only the writing statement knows (a new task's identifier, its step): the parts
 * around the holes, one more part than holes. The domain cuts it (domain/creation/rows.ts); a store fills it.
 */
export type JsonTemplate = readonly string[];

/** `t` with each hole filled by the JSON string of its value, in order. */
export function fillJson(t: JsonTemplate, values: readonly string[]): string {
  if (t.length !== values.length + 1) throw new Error(`fillJson: ${t.length - 1} holes, ${values.length} values`);
  let out = t[0]!;
  for (const [i, v] of values.entries()) out += JSON.stringify(v) + t[i + 1]!;
  return out;
}
