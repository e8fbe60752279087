// SPEC §2.2/§12 on PostgreSQL: the identity column is "C" whatever the database's default collation is, and a
// case-insensitive (nondeterministic ICU) collation on the column is refused by attestation.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attest } from '../../../src/server/db/schema/attest';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import type { Db } from '../../../src/server/db/types';
import { freshDb, testDialect } from '../../support/db';
import { makeWorkspace } from '../../support/fixtures';

async function serverQuery<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('pgUrl') });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(testDialect() !== 'postgres')('PostgreSQL collations (SPEC §2.2)', () => {
  let icu = false;
  const opened: Db[] = [];
  beforeAll(async () => {
    icu =
      (await serverQuery<{ n: number }>(`SELECT COUNT(*)::int AS n FROM pg_collation WHERE collprovider = 'i'`))[0]!.n >
      0;
  });
  afterAll(async () => {
    for (const db of opened) await db.close();
  });

  it('gives a "C" external_id column in a database whose default collation is ICU, and attests', async (ctx) => {
    if (!icu) ctx.skip('this PostgreSQL server was built without ICU');
    const name = `t_icu_${randomBytes(6).toString('hex')}`;
    await serverQuery(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'und'`);
    const url = new URL(inject('pgUrl'));
    url.pathname = `/${name}`;
    const db = openDb(url.toString());
    opened.push(db);
    expect(
      (await db.one<{ p: string }>(`SELECT datlocprovider AS p FROM pg_database WHERE datname = current_database()`))
        ?.p,
    ).toBe('i');

    await migrate(db);
    const column = await db.one<{ collation: string }>(
      `SELECT co.collname AS collation FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation
        WHERE a.attrelid = 'tasks'::regclass AND a.attname = 'external_id'`,
    );
    expect(column?.collation).toBe('C');
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [] });

    // And it behaves as bytes: ext-1 and EXT-1 are two identities even though the database default is ICU.
    const ws = await makeWorkspace(db);
    const now = new Date().toISOString();
    for (const [n, ext] of [
      [1, 'ext-1'],
      [2, 'EXT-1'],
    ] as const) {
      await db.run(
        `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
         VALUES ($1, $2, $3, $4, 't', $5, $6, $6, 'completed', $7)`,
        [`${name}-${n}`, ws.id, n, `${ws.prefix}-${n}`, ws.steps[0]!.id, now, ext],
      );
    }
  });

  it('refuses an external_id column with a case-insensitive nondeterministic ICU collation', async (ctx) => {
    if (!icu) ctx.skip('this PostgreSQL server was built without ICU');
    const db = await freshDb();
    opened.push(db);
    await db.exec(`CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`);
    await db.exec('ALTER TABLE tasks ALTER COLUMN external_id TYPE text COLLATE ci');
    const result = await attest(db);
    expect(result.ready).toBe(false);
    expect(result.reasons).toContain('tasks.external_id collation is public.ci (nondeterministic), expected C');
  });

  it('refuses the identity index keyed with a case-insensitive collation even when the column is "C"', async (ctx) => {
    if (!icu) ctx.skip('this PostgreSQL server was built without ICU');
    const db = await freshDb();
    opened.push(db);
    await db.exec(`CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)`);
    await db.exec(
      `DROP INDEX uniq_tasks_external_id;
       CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE ci) WHERE external_id IS NOT NULL`,
    );
    expect((await attest(db)).reasons).toEqual([
      'index uniq_tasks_external_id key external_id collation is public.ci, expected C',
    ]);
  });
});
