// SPEC §12 "Production PostgreSQL": the pool on a multi-host URL connects where `target_session_attrs` says, in the
// URL's order, and moves when the node stops qualifying — a read-only answer (SQLSTATE 25006) drops every connection to
// it at once, a lost node is looked past — with Prisma Client (built over the same pool) following. Two throwaway
// servers stand in for the nodes; one is made read-only the way a demoted primary is (default_transaction_read_only).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresDb } from '../../../src/server/db/drivers/postgres';
import { Store } from '../../../src/server/db/store';
import { testDialect } from '../../support/db';
import { createDatabase, startPostgres, type PgServer } from '../../support/postgres-server';
import pg from 'pg';

const run = testDialect() === 'postgres' && !process.env.TEST_DATABASE_URL;

async function admin(server: PgServer, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: server.url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

const portOf = (s: PgServer) => Number(new URL(s.url).port);

describe.runIf(run)('the pool on a multi-host URL (target_session_attrs)', () => {
  let a: PgServer;
  let b: PgServer;
  const open: PostgresDb[] = [];
  /** A pool on both servers, `a` first; its connections carry `name` as their application_name. */
  const dbOn = (attrs: string, name = 'tether') => {
    const hosts = [a, b].map((s) => `127.0.0.1:${portOf(s)}`).join(',');
    const db = new PostgresDb(
      `postgresql://postgres@${hosts}/topo?target_session_attrs=${attrs}&application_name=${name}`,
      { max: 3, connectTimeoutMs: 1000 },
    );
    open.push(db);
    return db;
  };
  const readOnly = async (s: PgServer, on: boolean) => {
    await admin(s, `ALTER SYSTEM SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await admin(s, 'SELECT pg_reload_conf()');
  };
  const where = async (db: PostgresDb) => (await db.one<{ port: number }>('SELECT inet_server_port() AS port'))!.port;
  const clients = async (s: PgServer, name: string) =>
    Number(
      (
        await admin(
          s,
          `SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = 'topo' AND application_name = '${name}'`,
        )
      ).rows[0].n,
    );

  beforeAll(async () => {
    [a, b] = await Promise.all([startPostgres(), startPostgres()]);
    for (const s of [a, b]) {
      await createDatabase(s.url, 'topo');
      await admin({ ...s, url: s.url.replace(/\/postgres$/, '/topo') }, 'CREATE TABLE k (v int)');
    }
  }, 120_000);
  afterAll(async () => {
    await Promise.all(open.map((db) => db.close()));
    a?.stop();
    b?.stop();
  });

  it('read-write: connects to the first writable host in the URL order, skipping a read-only one', async () => {
    await readOnly(a, true);
    try {
      expect(await where(dbOn('read-write'))).toBe(portOf(b));
      // `any` takes the first host that answers, read-only or not (libpq's default).
      expect(await where(dbOn('any'))).toBe(portOf(a));
    } finally {
      await readOnly(a, false);
    }
    expect(await where(dbOn('read-write'))).toBe(portOf(a));
  });

  it('a node that turns read-only (25006) loses every connection at once; the next statement writes on the other', async () => {
    const db = dbOn('read-write', 'demoted');
    const store = new Store(db);
    try {
      // Three connections open on a, Prisma's included.
      await Promise.all([1, 2, 3].map((v) => db.run('INSERT INTO k (v) VALUES ($1)', [v])));
      const prisma = await store.prisma();
      expect(
        (await prisma.$queryRawUnsafe<Array<{ port: number }>>('SELECT inet_server_port() AS port'))[0]!.port,
      ).toBe(portOf(a));
      expect(await clients(a, 'demoted')).toBe(3);

      await readOnly(a, true);
      // The statement that meets the read-only node fails (nothing was written); the node is forgotten.
      await expect(db.run('INSERT INTO k (v) VALUES (4)')).rejects.toMatchObject({
        name: 'DatabaseUnavailable',
        cause: { code: '25006' },
      });
      // Every connection of this pool to a is gone — the idle ones too, without waiting for the pool to use them.
      const deadline = Date.now() + 5000;
      while ((await clients(a, 'demoted')) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(await clients(a, 'demoted')).toBe(0);
      expect(await db.run('INSERT INTO k (v) VALUES (5)')).toBe(1);
      expect(await where(db)).toBe(portOf(b));
      expect(
        (await prisma.$queryRawUnsafe<Array<{ port: number }>>('SELECT inet_server_port() AS port'))[0]!.port,
      ).toBe(portOf(b));
    } finally {
      await readOnly(a, false);
      await store.close();
    }
  });

  it('primary: a host that is down is looked past; with none acceptable it fails fast with 08001 naming each host', async () => {
    a.halt!();
    try {
      const db = dbOn('primary');
      expect(await where(db)).toBe(portOf(b));
      await readOnly(b, true);
      // `primary` asks only "not a standby": a read-only primary still qualifies.
      expect(await where(dbOn('primary'))).toBe(portOf(b));
      const rw = dbOn('read-write');
      const err = await rw.one('SELECT 1').catch((e: unknown) => e as Error & { code?: string });
      expect(err).toMatchObject({ name: 'DatabaseUnavailable', cause: { code: '08001' } });
      expect((err as Error).message).toMatch(
        new RegExp(`127\\.0\\.0\\.1:${portOf(a)} unreachable.*127\\.0\\.0\\.1:${portOf(b)} read-only`),
      );
      // Within the backoff the answer comes at once, without connecting again.
      const started = Date.now();
      await expect(rw.one('SELECT 1')).rejects.toMatchObject({ name: 'DatabaseUnavailable', cause: { code: '08001' } });
      expect(Date.now() - started).toBeLessThan(50);
      await readOnly(b, false);
      const deadline = Date.now() + 5000;
      while (
        Date.now() < deadline &&
        (await rw.one('SELECT 1').then(
          () => false,
          () => true,
        ))
      )
        await new Promise((r) => setTimeout(r, 50));
      expect(await where(rw)).toBe(portOf(b));
    } finally {
      a.resume!();
      await readOnly(b, false);
    }
  });
});
