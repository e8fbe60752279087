// SPEC §12: attest the real catalog before any external-identity read or write.
// Each dialect reads its catalog into one neutral shape (catalog-postgres.ts, catalog-sqlite.ts); the SPEC §2.2
// rules are checked once, here, so both dialects fail with the same words.
import type { Dialect, Sql } from '../types';
import type { CatalogColumn, CatalogIndex, IdentityCatalog } from './catalog';
import { dbErrorInfo } from '../errors';
import { LEGACY_TASKS } from '../repositories/legacy';
import { readPostgresIdentityCatalog } from './catalog-postgres';
import { readSqliteIdentityCatalog } from './catalog-sqlite';

export type { CatalogColumn, CatalogIndex, IdentityCatalog };

export interface AttestationResult {
  ready: boolean;
  reasons: string[];
  /** Legacy rows (held identity, no settlement, no creation operation) that block readiness (the first ones). */
  legacy: Array<{ task_id: string; workspace_id: string; external_id: string }>;
  /** How many legacy rows there are in all. */
  legacyTotal: number;
  checkedAt: string;
}

export const IDENTITY_INDEX = 'uniq_tasks_external_id';

export type FindingCode =
  | 'table_missing'
  | 'column_missing'
  | 'column_type'
  | 'column_nullable'
  | 'column_collation'
  | 'index_missing'
  | 'index_invalid'
  | 'index_not_unique'
  | 'index_keys'
  | 'index_collation'
  | 'index_included'
  | 'index_predicate'
  | 'index_lookalike'
  | 'legacy';

export interface Finding {
  code: FindingCode;
  reason: string;
}

interface Expectation {
  binary: string[];
  binaryLabel: string;
  externalIdTypes: string[];
  settledTypes: string[];
  settledLabel: string;
}

// SPEC §2.2: PostgreSQL `COLLATE "C"` (POSIX is the same byte order); SQLite `COLLATE BINARY`.
const EXPECT: Record<Dialect, Expectation> = {
  postgres: {
    binary: ['C', 'POSIX'],
    binaryLabel: 'C',
    externalIdTypes: ['text'],
    settledTypes: ['timestamp with time zone'],
    settledLabel: 'timestamptz',
  },
  sqlite: {
    binary: ['BINARY'],
    binaryLabel: 'BINARY',
    externalIdTypes: ['text'],
    settledTypes: ['text'],
    settledLabel: 'text',
  },
};

const KEYS = ['workspace_id', 'external_id'];
const PREDICATE = 'external_id IS NOT NULL';
/** Findings the SQLite rebuild (sqlite-rebuild.ts) repairs automatically at migrate time. */
export const COLLATION_FINDINGS: readonly FindingCode[] = ['column_collation', 'index_collation'];

export async function readIdentityCatalog(db: Sql): Promise<IdentityCatalog> {
  return db.dialect === 'postgres' ? readPostgresIdentityCatalog(db) : readSqliteIdentityCatalog(db);
}

/** The schema findings (no data checks): empty means the identity schema is exactly SPEC §2.2. */
export function checkIdentityCatalog(dialect: Dialect, catalog: IdentityCatalog): Finding[] {
  const want = EXPECT[dialect];
  if (!catalog.tasksExists) return [{ code: 'table_missing', reason: 'table tasks is missing' }];
  const findings: Finding[] = [];
  const add = (code: FindingCode, reason: string) => findings.push({ code, reason });
  const isBinary = (c: string | null) => c !== null && want.binary.includes(dialect === 'sqlite' ? c.toUpperCase() : c);

  const ext = catalog.columns.get('external_id');
  if (!ext) add('column_missing', 'column tasks.external_id is missing');
  else {
    if (!want.externalIdTypes.includes(ext.type.toLowerCase()))
      add('column_type', `tasks.external_id type is ${ext.type}, expected text`);
    if (!ext.nullable) add('column_nullable', 'tasks.external_id is NOT NULL, expected nullable');
    if (!isBinary(ext.collation)) {
      const nd = ext.deterministic ? '' : ' (nondeterministic)';
      add('column_collation', `tasks.external_id collation is ${ext.collation}${nd}, expected ${want.binaryLabel}`);
    }
  }
  const settled = catalog.columns.get('external_id_settled_at');
  if (!settled) add('column_missing', 'column tasks.external_id_settled_at is missing');
  else {
    if (!want.settledTypes.includes(settled.type.toLowerCase())) {
      add('column_type', `tasks.external_id_settled_at type is ${settled.type}, expected ${want.settledLabel}`);
    }
    if (!settled.nullable) add('column_nullable', 'tasks.external_id_settled_at is NOT NULL, expected nullable');
  }

  // A look-alike under another name does not count (SPEC §12), and a second unique index over external_id
  // would decide identity by rules other than §2.2 (e.g. case-insensitively), so it is a failure too.
  for (const other of catalog.indexes) {
    if (other.name === IDENTITY_INDEX || !other.unique) continue;
    if (other.keys.some((k) => k.column === 'external_id')) {
      add(
        'index_lookalike',
        `unique index ${other.name} on tasks also constrains external_id; only ${IDENTITY_INDEX} may`,
      );
    }
  }

  const index = catalog.indexes.find((i) => i.name === IDENTITY_INDEX);
  if (!index) {
    add('index_missing', `index ${IDENTITY_INDEX} is missing`);
    return findings;
  }
  const name = `index ${IDENTITY_INDEX}`;
  if (!index.valid) add('index_invalid', `${name} is not valid (left over from a failed build?)`);
  if (!index.unique) add('index_not_unique', `${name} is not unique`);
  const keys = index.keys.map((k) => k.column ?? '<expression>');
  if (keys.join(',') !== KEYS.join(',')) {
    add('index_keys', `${name} keys are (${keys.join(', ')}), expected (${KEYS.join(', ')})`);
  }
  const extKey = index.keys.find((k) => k.column === 'external_id');
  if (extKey && !isBinary(extKey.collation)) {
    add(
      'index_collation',
      `${name} key external_id collation is ${extKey.collation ?? 'none'}, expected ${want.binaryLabel}`,
    );
  }
  if (index.included.length > 0)
    add('index_included', `${name} includes (${index.included.join(', ')}), expected no included columns`);
  if (index.predicate === null) add('index_predicate', `${name} has no predicate, expected WHERE ${PREDICATE}`);
  else if (normalizePredicate(index.predicate) !== normalizePredicate(PREDICATE)) {
    add('index_predicate', `${name} predicate is ${index.predicate}, expected ${PREDICATE}`);
  }
  return findings;
}

/** `(("external_id" IS NOT NULL))` and `external_id is not null` are the same predicate. */
export function normalizePredicate(text: string): string {
  let s = text.replace(/["`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
  while (s.startsWith('(') && s.endsWith(')') && wrapsWhole(s)) s = s.slice(1, -1).trim();
  return s;
}

function wrapsWhole(s: string): boolean {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')' && --depth === 0 && i < s.length - 1) return false;
  }
  return depth === 0;
}

const LEGACY_LIMIT = 100;

/**
 * SPEC §12 legacy diagnostic: a row holding an identity that was never settled and has no creation operation
 * that could settle or release it. Nothing can resolve it automatically, so an operator must.
 */
export async function findLegacyIdentities(db: Sql): Promise<{ total: number; rows: AttestationResult['legacy'] }> {
  const where = LEGACY_TASKS;
  const total = await db.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM tasks t WHERE ${where}`);
  const rows = await db.query<AttestationResult['legacy'][number]>(
    `SELECT t.id AS task_id, t.workspace_id, t.external_id FROM tasks t WHERE ${where} ORDER BY t.workspace_id, t.id LIMIT ${LEGACY_LIMIT}`,
  );
  return { total: Number(total?.n ?? 0), rows };
}

/** Schema findings plus the legacy diagnostic; `db` may be a transaction (the rebuild re-attests inside one). */
export async function inspectIdentity(
  db: Sql,
): Promise<{ findings: Finding[]; legacy: AttestationResult['legacy']; legacyTotal: number }> {
  const findings = checkIdentityCatalog(db.dialect, await readIdentityCatalog(db));
  let legacy: AttestationResult['legacy'] = [];
  let legacyTotal = 0;
  if (!findings.some((f) => f.code === 'table_missing' || f.code === 'column_missing')) {
    try {
      const found = await findLegacyIdentities(db);
      legacy = found.rows;
      legacyTotal = found.total;
      if (found.total > 0) {
        const shown = found.total > legacy.length ? ` (first ${legacy.length} listed)` : '';
        findings.push({
          code: 'legacy',
          reason: `${found.total} legacy task(s) hold an external_id with no settlement and no creation operation${shown}; an operator must settle or release them`,
        });
      }
    } catch (err) {
      findings.push({ code: 'legacy', reason: `legacy diagnostic could not run: ${(err as Error).message}` });
    }
  }
  return { findings, legacy, legacyTotal };
}

export async function attest(db: Sql): Promise<AttestationResult> {
  const checkedAt = new Date().toISOString();
  try {
    const { findings, legacy, legacyTotal } = await inspectIdentity(db);
    return { ready: findings.length === 0, reasons: findings.map((f) => f.reason), legacy, legacyTotal, checkedAt };
  } catch (err) {
    // A database that cannot be reached at all says nothing about the catalog: the caller keeps its last answer
    // (readiness.ts; the outage itself is a 503 per request). A missing database or table is an answer: not ready.
    const info = dbErrorInfo(err);
    if (info?.unavailable && !info.schemaMissing) throw err;
    // An unreadable catalog is not an attested one.
    return {
      ready: false,
      reasons: [`attestation could not read the catalog: ${(err as Error).message}`],
      legacy: [],
      legacyTotal: 0,
      checkedAt,
    };
  }
}
