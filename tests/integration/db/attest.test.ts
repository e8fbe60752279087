// SPEC §12: attestation reads the real catalog and fails with a specific reason for every look-alike of the
// SPEC §2.2 identity schema. Each case damages its own freshly migrated database.
import { afterEach, describe, expect, it } from 'vitest';
import { attest } from '../../../src/server/db/schema/attest';
import type { SqliteDb } from '../../../src/server/db/drivers';
import type { Db } from '../../../src/server/db/types';
import { freshDb, testDialect } from '../../support/db';
import { replaceSqliteTasksTable, makeSqliteTasksNocase } from './schema-edits';

const dialect = testDialect();
const BIN = dialect === 'postgres' ? 'C' : 'BINARY';
const IX = 'index uniq_tasks_external_id';
const recreate = (definition: string) => `DROP INDEX uniq_tasks_external_id; ${definition}`;

interface LookAlike {
  name: string;
  /** DDL for both dialects, or a function doing the damage on this dialect. */
  damage: string | ((db: Db) => Promise<void>);
  reasons: string[];
}

const bothDialects: LookAlike[] = [
  { name: 'index missing', damage: 'DROP INDEX uniq_tasks_external_id', reasons: [`${IX} is missing`] },
  {
    name: 'index renamed (a look-alike under another name)',
    damage: recreate(
      'CREATE UNIQUE INDEX uniq_tasks_ext ON tasks (workspace_id, external_id) WHERE external_id IS NOT NULL',
    ),
    reasons: [
      'unique index uniq_tasks_ext on tasks also constrains external_id; only uniq_tasks_external_id may',
      `${IX} is missing`,
    ],
  },
  {
    name: 'index not unique',
    damage: recreate(
      'CREATE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id) WHERE external_id IS NOT NULL',
    ),
    reasons: [`${IX} is not unique`],
  },
  {
    name: 'index without predicate',
    damage: recreate('CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id)'),
    reasons: [`${IX} has no predicate, expected WHERE external_id IS NOT NULL`],
  },
  {
    name: 'index keys in the wrong order',
    damage: recreate(
      'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (external_id, workspace_id) WHERE external_id IS NOT NULL',
    ),
    reasons: [`${IX} keys are (external_id, workspace_id), expected (workspace_id, external_id)`],
  },
  {
    name: 'index on external_id alone',
    damage: recreate('CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (external_id) WHERE external_id IS NOT NULL'),
    reasons: [`${IX} keys are (external_id), expected (workspace_id, external_id)`],
  },
  {
    name: 'index with another predicate',
    damage: recreate(
      `CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id) WHERE external_id <> ''`,
    ),
    reasons: [
      dialect === 'postgres'
        ? `${IX} predicate is (external_id <> ''::text), expected external_id IS NOT NULL`
        : `${IX} predicate is external_id <> '', expected external_id IS NOT NULL`,
    ],
  },
  {
    name: 'a second unique index over external_id',
    damage: 'CREATE UNIQUE INDEX uniq_tasks_ext_again ON tasks (external_id)',
    reasons: [
      'unique index uniq_tasks_ext_again on tasks also constrains external_id; only uniq_tasks_external_id may',
    ],
  },
  { name: 'tasks table missing', damage: 'DROP TABLE tasks', reasons: ['table tasks is missing'] },
];

const postgresOnly: LookAlike[] = [
  {
    name: 'column without the binary collation',
    damage: 'ALTER TABLE tasks ALTER COLUMN external_id TYPE text COLLATE "default"',
    // PostgreSQL rebuilds the index with the column's new collation, so its key is caught too.
    reasons: [
      'tasks.external_id collation is default, expected C',
      `${IX} key external_id collation is default, expected C`,
    ],
  },
  {
    name: 'index key without the binary collation',
    damage: recreate(
      'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE "default") WHERE external_id IS NOT NULL',
    ),
    reasons: [`${IX} key external_id collation is default, expected C`],
  },
  {
    name: 'external_id NOT NULL',
    damage: 'ALTER TABLE tasks ALTER COLUMN external_id SET NOT NULL',
    reasons: ['tasks.external_id is NOT NULL, expected nullable'],
  },
  {
    name: 'external_id_settled_at not a timestamptz',
    damage: 'ALTER TABLE tasks ALTER COLUMN external_id_settled_at TYPE timestamp',
    reasons: ['tasks.external_id_settled_at type is timestamp without time zone, expected timestamptz'],
  },
  {
    name: 'external_id not text',
    damage: 'ALTER TABLE tasks ALTER COLUMN external_id TYPE varchar(255) COLLATE "C"',
    reasons: ['tasks.external_id type is character varying(255), expected text'],
  },
];

const editTable = (edit: (sql: string) => string) => async (db: Db) => replaceSqliteTasksTable(db as SqliteDb, edit);
const sqliteOnly: LookAlike[] = [
  {
    name: 'column without the binary collation',
    damage: async (db) => makeSqliteTasksNocase(db as SqliteDb),
    reasons: [
      'tasks.external_id collation is NOCASE, expected BINARY',
      `${IX} key external_id collation is NOCASE, expected BINARY`,
    ],
  },
  {
    name: 'index key without the binary collation',
    damage: recreate(
      'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE NOCASE) WHERE external_id IS NOT NULL',
    ),
    reasons: [`${IX} key external_id collation is NOCASE, expected BINARY`],
  },
  {
    name: 'external_id NOT NULL',
    damage: editTable((sql) =>
      sql.replace(/external_id(\s+)text COLLATE BINARY/, 'external_id$1text COLLATE BINARY NOT NULL'),
    ),
    reasons: ['tasks.external_id is NOT NULL, expected nullable'],
  },
  {
    name: 'external_id_settled_at not text',
    damage: editTable((sql) => sql.replace(/external_id_settled_at(\s+)text/, 'external_id_settled_at$1integer')),
    reasons: ['tasks.external_id_settled_at type is INTEGER, expected text'],
  },
];

describe('schema attestation (SPEC §12, §2.2)', () => {
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });

  it('passes on the migrated schema', async () => {
    db = await freshDb();
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [], legacy: [] });
  });

  it.each([...bothDialects, ...(dialect === 'postgres' ? postgresOnly : sqliteOnly)])(
    'fails with a specific reason: $name',
    async (c) => {
      db = await freshDb();
      if (typeof c.damage === 'string') await db.exec(c.damage);
      else await c.damage(db);
      const result = await attest(db);
      expect(result.ready).toBe(false);
      expect(result.reasons).toEqual(c.reasons);
    },
  );

  it(`accepts the index written without an explicit COLLATE (the column's ${BIN} applies)`, async () => {
    db = await freshDb();
    await db.exec(
      recreate(
        'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id) WHERE external_id IS NOT NULL',
      ),
    );
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [] });
  });
});
