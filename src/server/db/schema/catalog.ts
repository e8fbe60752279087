// The neutral shape each dialect reads its catalog into (catalog-postgres.ts, catalog-sqlite.ts); attest.ts checks
// it once.

/** What a dialect's catalog says about `tasks` and its indexes. */
export interface IdentityCatalog {
  tasksExists: boolean;
  columns: Map<string, CatalogColumn>;
  indexes: CatalogIndex[];
}

export interface CatalogColumn {
  name: string;
  /** Declared type as the catalog spells it (`text`, `timestamp with time zone`). */
  type: string;
  nullable: boolean;
  /** Collation name as the catalog spells it; schema-qualified when not a built-in. */
  collation: string;
  /** PostgreSQL: false for a nondeterministic (e.g. case-insensitive ICU) collation. */
  deterministic: boolean;
}

export interface CatalogIndex {
  name: string;
  unique: boolean;
  /** PostgreSQL: false for an index left invalid by a failed concurrent build. */
  valid: boolean;
  /** Key columns in order; `column: null` is an expression key. */
  keys: Array<{ column: string | null; collation: string | null }>;
  included: string[];
  /** The predicate as text (normalised by the checker), or null for a full index. */
  predicate: string | null;
}
