// Prisma's own engines, offline, for the tests that hold Tether to Prisma's definitions (SPEC §12):
// - the schema parser (`@prisma/prisma-schema-wasm`): the DMMF of a schema.prisma;
// - the schema engine (`@prisma/schema-engine-wasm`, driven through a driver adapter): the SQL Prisma would run
//   for a schema, and Prisma Migrate's own view of a database's `_prisma_migrations`.
// Both are the builds `@prisma/internals@7.10.0` pins (the CLI's 7.10.1 build is not published separately).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type * as SchemaEngineBg from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationFile } from '../../../src/server/db/schema/migrate';
import { lockfileText } from '../../../src/server/db/schema/migration-history';
import type { Dialect } from '../../../src/server/db/types';

const require = createRequire(import.meta.url);

// ---- the schema parser ------------------------------------------------------------------------------------

export interface DmmfField {
  name: string;
  dbName?: string;
  kind: 'scalar' | 'object' | 'enum' | 'unsupported';
  isRequired: boolean;
  isId: boolean;
  type: string;
  nativeType: [string, string[]] | null;
  hasDefaultValue: boolean;
  default?: unknown;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
  relationOnUpdate?: string;
}

export interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
  primaryKey: { name: string | null; fields: string[] } | null;
}

export interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  dbName?: string;
  fields: Array<{ name: string }>;
}

export interface Dmmf {
  datamodel: { models: DmmfModel[]; indexes: DmmfIndex[] };
}

/** The DMMF of a schema, through Prisma's own parser; an invalid schema throws Prisma's P1012 message. */
export function readDmmf(schema: string): Dmmf {
  const wasm = require('@prisma/prisma-schema-wasm') as { get_dmmf(params: string): string };
  try {
    return JSON.parse(
      wasm.get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]], noColor: true })),
    ) as Dmmf;
  } catch (err) {
    const message = (err as Error).message;
    throw new Error(`Prisma rejects the schema: ${(JSON.parse(message) as { message?: string }).message ?? message}`);
  }
}

// ---- the schema engine ------------------------------------------------------------------------------------

type Engine = Awaited<ReturnType<typeof SchemaEngineBg.SchemaEngine.new>>;
let loaded: Promise<typeof SchemaEngineBg> | undefined;

/** The engine module, instantiated by hand: its ESM entry imports the .wasm file directly, which Node 20 cannot. */
function loadEngine(): Promise<typeof SchemaEngineBg> {
  loaded ??= (async () => {
    const path = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bg = (await import('@prisma/schema-engine-wasm/schema_engine_bg')) as typeof SchemaEngineBg;
    const { instance } = await WebAssembly.instantiate(readFileSync(path.replace(/\.js$/, '.wasm')), {
      './schema_engine_bg.js': bg,
    });
    (bg as unknown as { __wbg_set_wasm(e: unknown): void }).__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
    return bg;
  })();
  return loaded;
}

/**
 * Runs `fn` with a schema engine connected to `url` (a `file:` SQLite path or a PostgreSQL URL) through Prisma's
 * driver adapter, then closes every connection it opened: freeing the engine does not, and on SQLite Prisma
 * Migrate holds the file in EXCLUSIVE locking mode until its connection closes.
 */
export async function withSchemaEngine<T>(
  url: string,
  schema: string | undefined,
  fn: (engine: Engine) => Promise<T>,
): Promise<T> {
  const bg = await loadEngine();
  const inner: SqlMigrationAwareDriverAdapterFactory =
    url.startsWith('file:') || url === ':memory:'
      ? new PrismaBetterSqlite3({ url })
      : new PrismaPg({ connectionString: url });
  const opened: SqlDriverAdapter[] = [];
  const track = async (adapter: Promise<SqlDriverAdapter>) => {
    const a = await adapter;
    opened.push(a);
    return a;
  };
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: () => track(inner.connect()),
    connectToShadowDb: () => track(inner.connectToShadowDb()),
  };
  const engine = await bg.SchemaEngine.new(
    { datamodels: schema ? [['schema.prisma', schema]] : undefined },
    () => {},
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    return await fn(engine);
  } finally {
    engine.free();
    for (const a of opened) await a.dispose();
  }
}

const NO_FILTER = { externalTables: [], externalEnums: [] };

/** The SQL `prisma migrate diff --from-empty --to-schema <schema> --script` prints for a schema. */
export async function renderSchemaSql(schema: string): Promise<string> {
  const result = await withSchemaEngine(':memory:', schema, (engine) =>
    engine.diff({
      from: { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: schema }] },
      script: true,
      exitCode: null,
      filters: NO_FILTER,
    }),
  );
  return result.stdout ?? '';
}

/** Prisma Migrate's `MigrationList` for migration folders, as the CLI reads them from disk. */
export function migrationList(dialect: Dialect, files: MigrationFile[]) {
  return {
    baseDir: '/migrations',
    lockfile: { path: 'migration_lock.toml', content: lockfileText(dialect) },
    migrationDirectories: files.map((f) => ({
      path: f.name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok' as const, value: f.sql } },
    })),
    shadowDbInitScript: '',
  };
}

/** `prisma migrate status`'s diagnosis of a database against migration folders (no shadow database). */
export async function diagnoseHistory(url: string, dialect: Dialect, files: MigrationFile[]) {
  return withSchemaEngine(url, undefined, (engine) =>
    engine.diagnoseMigrationHistory({
      migrationsList: migrationList(dialect, files),
      optInToShadowDatabase: false,
      filters: NO_FILTER,
    }),
  );
}

/** `prisma migrate deploy` of migration folders onto a database, by Prisma's engine. */
export async function deployWithPrisma(url: string, dialect: Dialect, files: MigrationFile[]) {
  return withSchemaEngine(url, undefined, (engine) =>
    engine.applyMigrations({ migrationsList: migrationList(dialect, files), filters: NO_FILTER }),
  );
}
