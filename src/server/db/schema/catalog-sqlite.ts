// SPEC §12 on SQLite: read `tasks` from the real catalog. Types and nullability come from
// `pragma table_xinfo`; index keys and their per-key collation from `pragma index_list`/`index_xinfo`.
// SQLite exposes a column's declared collation nowhere but in the stored CREATE TABLE text, and a
// partial index's predicate only in its CREATE INDEX text, so those two are parsed from sqlite_master.
import type { CatalogColumn, CatalogIndex, IdentityCatalog } from './catalog';
import type { Sql } from '../types';

export async function readSqliteIdentityCatalog(db: Sql): Promise<IdentityCatalog> {
  const table = await db.one<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'tasks'`);
  if (!table) return { tasksExists: false, columns: new Map(), indexes: [] };

  const collations = new Map(
    splitTableDefinition(table.sql).columns.map((c) => [c.name, declaredCollation(c.definition)]),
  );
  const columns = new Map<string, CatalogColumn>();
  const xinfo = await db.query<{ name: string; type: string; notnull: number; pk: number }>(
    `SELECT * FROM pragma_table_xinfo('tasks')`,
  );
  for (const c of xinfo) {
    // A column without COLLATE compares with BINARY, SQLite's default.
    columns.set(c.name, {
      name: c.name,
      type: c.type,
      nullable: !c.notnull,
      collation: collations.get(c.name) ?? 'BINARY',
      deterministic: true,
    });
  }

  const indexes: CatalogIndex[] = [];
  const list = await db.query<{ name: string; unique: number; partial: number }>(
    `SELECT * FROM pragma_index_list('tasks')`,
  );
  for (const ix of list) {
    const xinfo = await db.query<{ seqno: number; cid: number; name: string | null; coll: string | null; key: number }>(
      `SELECT * FROM pragma_index_xinfo($1) ORDER BY seqno`,
      [ix.name],
    );
    const created = await db.one<{ sql: string | null }>(
      `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = $1`,
      [ix.name],
    );
    indexes.push({
      name: ix.name,
      unique: Boolean(ix.unique),
      valid: true,
      // cid -2 is an expression key; key = 0 rows are the rowid SQLite appends, not part of the definition.
      keys: xinfo.filter((k) => k.key).map((k) => ({ column: k.cid === -2 ? null : k.name, collation: k.coll })),
      included: [],
      predicate: ix.partial && created?.sql ? indexPredicate(created.sql) : null,
    });
  }
  return { tasksExists: true, columns, indexes };
}

// ---- Minimal SQL text scanning: enough for CREATE TABLE / CREATE INDEX as SQLite stores them. ----

/** Calls `visit(i, depth)` for each character outside quotes and comments. */
function scan(sql: string, visit: (i: number, depth: number) => boolean | void): void {
  let depth = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i]!;
    const close = ch === "'" ? "'" : ch === '"' ? '"' : ch === '`' ? '`' : ch === '[' ? ']' : null;
    if (close) {
      const end = sql.indexOf(close, i + 1);
      i = end < 0 ? sql.length : end;
      // A doubled quote ('it''s') simply re-enters the loop at the second quote.
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === '(') depth++;
    if (visit(i, depth) === true) return;
    if (ch === ')') depth--;
  }
}

export function unquoteIdentifier(token: string): string {
  const t = token.trim();
  const first = t[0];
  if ((first === '"' || first === '`') && t.endsWith(first)) return t.slice(1, -1).replaceAll(first + first, first);
  if (first === '[' && t.endsWith(']')) return t.slice(1, -1);
  return t;
}

export interface TableDefinition {
  /** Text before the opening parenthesis: `CREATE TABLE tasks `. */
  head: string;
  columns: Array<{ name: string; definition: string }>;
  /** Table constraints (PRIMARY KEY (...), FOREIGN KEY ..., CHECK ...), verbatim. */
  constraints: string[];
  /** Text after the closing parenthesis (`WITHOUT ROWID`, `STRICT`). */
  tail: string;
}

const CONSTRAINT_START = /^(CONSTRAINT|PRIMARY|UNIQUE|CHECK|FOREIGN)\b/i;

export function splitTableDefinition(sql: string): TableDefinition {
  let open = -1;
  let close = -1;
  const commas: number[] = [];
  scan(sql, (i, depth) => {
    const ch = sql[i];
    if (ch === '(' && depth === 1 && open < 0) open = i;
    else if (ch === ',' && depth === 1) commas.push(i);
    else if (ch === ')' && depth === 1) {
      close = i;
      return true;
    }
  });
  if (open < 0 || close < 0) throw new Error(`cannot parse table definition: ${sql.slice(0, 80)}`);
  const bounds = [open, ...commas, close];
  const parts = bounds.slice(0, -1).map((start, n) => sql.slice(start + 1, bounds[n + 1]).trim());
  const def: TableDefinition = { head: sql.slice(0, open), columns: [], constraints: [], tail: sql.slice(close + 1) };
  for (const part of parts) {
    if (CONSTRAINT_START.test(part)) def.constraints.push(part);
    else def.columns.push({ name: unquoteIdentifier(firstToken(part)), definition: part });
  }
  return def;
}

function firstToken(part: string): string {
  const m = /^("(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\]|\S+)/.exec(part);
  return m ? m[1]! : part;
}

/** Removes `COLLATE x` clauses that apply to the column itself (not inside CHECK (...) etc.). */
export function withoutCollate(definition: string): { text: string; collation: string | null } {
  let collation: string | null = null;
  let text = definition;
  const re = /\bCOLLATE\s+("(?:[^"]|"")*"|'[^']*'|`[^`]*`|\[[^\]]*\]|\w+)/gi;
  const hits: Array<{ start: number; end: number; name: string }> = [];
  const starts = new Set<number>();
  scan(definition, (i, depth) => {
    if (depth === 0) starts.add(i);
  });
  for (const m of definition.matchAll(re)) {
    if (starts.has(m.index))
      hits.push({ start: m.index, end: m.index + m[0].length, name: unquoteIdentifier(m[1]!.replace(/^'|'$/g, '')) });
  }
  for (const h of hits.reverse()) {
    collation ??= h.name; // SQLite uses the last COLLATE clause of a column
    text = `${text.slice(0, h.start)}${text.slice(h.end)}`;
  }
  return { text: text.replace(/\s+/g, ' ').trim(), collation };
}

export function declaredCollation(definition: string): string {
  return withoutCollate(definition).collation?.toUpperCase() ?? 'BINARY';
}

/** The WHERE clause of a stored CREATE INDEX statement, or null. */
export function indexPredicate(sql: string): string | null {
  let close = -1;
  scan(sql, (i, depth) => {
    if (sql[i] === ')' && depth === 1) {
      close = i;
      return true;
    }
  });
  const rest = close < 0 ? '' : sql.slice(close + 1).trim();
  const m = /^WHERE\s+([\s\S]+)$/i.exec(rest);
  return m ? m[1]!.trim() : null;
}
