// A statement that fails outside a transaction must not cost the pooled connection. pg-pool's
// `pool.query()` destroys the connection on any error — and the create protocol expects errors (a unique
// violation is how a lost race ends, SPEC §4.1 step 7) — so the dialect checks connections out itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDb } from '../../../src/server/db/drivers/postgres';
import { freshDatabaseUrl, testDialect } from '../../support/db';

describe.skipIf(testDialect() !== 'postgres')('PostgreSQL pool connections', () => {
  let db: PostgresDb;

  beforeAll(async () => {
    db = new PostgresDb(await freshDatabaseUrl(), { max: 1 });
  });
  afterAll(async () => {
    await db?.close();
  });

  const backend = async () => (await db.one<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;

  it('keeps the connection after an SQL error (a unique violation, a division by zero)', async () => {
    await db.exec('CREATE TABLE uniq_probe (k text PRIMARY KEY)');
    const pid = await backend();
    await db.run('INSERT INTO uniq_probe (k) VALUES ($1)', ['a']);
    await expect(db.run('INSERT INTO uniq_probe (k) VALUES ($1)', ['a'])).rejects.toMatchObject({ code: '23505' });
    await expect(db.one('SELECT 1 / $1::int AS x', [0])).rejects.toMatchObject({ code: '22012' });
    expect(await backend()).toBe(pid);
  });

  it('replaces a connection the server ended, and the next statement succeeds', async () => {
    const pid = await backend();
    await expect(db.one('SELECT pg_terminate_backend(pg_backend_pid())')).rejects.toBeTruthy();
    const next = await backend();
    expect(next).not.toBe(pid);
    expect(await db.one<{ x: number }>('SELECT 1 AS x')).toEqual({ x: 1 });
  });

  it('reads timestamptz as the same ISO text in a UTC session and in any other time zone', async () => {
    const instant = "'2026-12-01 07:03:11.123456+00'::timestamptz";
    const read = async () => (await db.one<{ t: string }>(`SELECT ${instant} AS t`))!.t;
    await db.exec("SET TimeZone = 'UTC'");
    expect(await read()).toBe('2026-12-01T07:03:11.123Z');
    // SET lasts for the session: the pool has one connection, so the next read sees it. Put back afterwards.
    await db.exec("SET TimeZone = 'Asia/Kolkata'");
    try {
      expect(await read()).toBe('2026-12-01T07:03:11.123Z');
    } finally {
      await db.exec('RESET TimeZone');
    }
  });
});
