// Health said ready while every call failed. With the database dropped every API call answered 500
// (SQLSTATE 3D000 was not "unavailable"); re-created empty, `/api/health` answered 200 `ready:true` with the
// start-up `checked_at` while every call answered 500 `relation "api_tokens" does not exist`. Now a missing database
// or table is a 503 `database unavailable` like any outage, and readiness re-attests (readiness.ts) — at once when a
// request meets the missing table, and every TETHER_ATTEST_INTERVAL_MS — so health turns not ready with the reason
// and a fresh `checked_at`, and turns ready again once the schema is back (after `tether migrate`: the server does
// not migrate by itself at run time).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import type { Db } from '../../../src/server/db/types';
import { freshDatabaseUrl, freshDb, testDialect } from '../../support/db';
import { makeWorkspace, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';

const UNAVAILABLE = { error: 'database unavailable' };

interface Health {
  http: number;
  ready: boolean;
  database: string;
  attestation: { ready: boolean; reasons: string[]; checked_at: string };
}

async function health(api: TestApi): Promise<Health> {
  const res = await fetch(`${api.url}/api/health`);
  return { ...((await res.json()) as Omit<Health, 'http'>), http: res.status };
}

/** `quiet`: no relay or recovery loop, so the first thing to meet a missing table is the test's own request. */
function startApi(db: Db, attestIntervalMs: number, quiet = false): Promise<TestApi> {
  const config = loadConfig();
  const loops = quiet
    ? { relay: { ...config.relay, enabled: false }, recovery: { ...config.recovery, enabled: false } }
    : {};
  return startTestApi(db, { config: { ...config, failpointsEnabled: true, attestIntervalMs, ...loops } });
}

const createRest = (api: TestApi, ws: TestWorkspace, token: string) =>
  call(api.url, 'POST', '/api/v1/tasks', {
    token,
    body: { workspace_id: ws.id, external_id: uniq('so-'), title: 'T' },
  });

describe('a table that disappears under a running server (both dialects)', () => {
  let db: Db;
  let ws: TestWorkspace;
  let token: string;
  const apis: TestApi[] = [];
  beforeAll(async () => {
    db = await freshDb();
    ws = await makeWorkspace(db);
    token = await makeToken(db, [ws.id]);
  });
  afterAll(async () => {
    for (const a of apis) await a.close();
    await db?.close();
  });

  it('the first request that meets it turns health not ready at once; calls answer 503; on-demand refresh restores', async () => {
    const api = await startApi(db, 600_000, true); // no periodic check and no background loop: only the request's alarm can notice
    apis.push(api);
    const start = await health(api);
    expect(start).toMatchObject({ http: 200, ready: true });

    await db.exec('ALTER TABLE tasks RENAME TO tasks_away');
    try {
      const rest = await createRest(api, ws, token);
      expect(rest.status).toBe(503);
      expect(rest.json).toEqual(UNAVAILABLE);
      const t = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, title: 'T' }, token);
      expect(t.status).toBe(503);
      expect((t.json as { error: { message: string } }).error.message).toBe(UNAVAILABLE.error);

      let h = start;
      await until(async () => !(h = await health(api)).attestation.ready, 5_000, 'health to say not ready');
      expect(h.http).toBe(503);
      expect(h.attestation.reasons).toContain('table tasks is missing');
      expect(h.attestation.checked_at > start.attestation.checked_at).toBe(true);
    } finally {
      await db.exec('ALTER TABLE tasks_away RENAME TO tasks');
    }
    await api.services.readiness.refresh(db); // on demand: what `tether attest` and the console will call
    expect(await health(api)).toMatchObject({ http: 200, ready: true });
    expect((await createRest(api, ws, token)).status).toBe(200);
  });

  it('the periodic check notices it with no request at all, and notices its return', async () => {
    const api = await startApi(db, 200);
    apis.push(api);
    await until(async () => (await health(api)).ready, 5_000, 'ready');
    await db.exec('ALTER TABLE tasks RENAME TO tasks_away');
    try {
      await until(async () => !(await health(api)).attestation.ready, 5_000, 'the periodic check to say not ready');
    } finally {
      await db.exec('ALTER TABLE tasks_away RENAME TO tasks');
    }
    await until(async () => (await health(api)).ready, 5_000, 'the periodic check to say ready again');
  });
});

describe.runIf(testDialect() === 'postgres')(
  'DROP DATABASE, then CREATE DATABASE empty, then migrate (PostgreSQL)',
  () => {
    let url: string;
    let name: string;
    let db: Db;
    let api: TestApi;
    let admin: pg.Client;
    beforeAll(async () => {
      url = await freshDatabaseUrl();
      name = new URL(url).pathname.slice(1);
      db = openDb(url);
      await migrate(db);
      api = await startApi(db, 500);
      admin = new pg.Client({ connectionString: inject('pgUrl') });
      await admin.connect();
    });
    afterAll(async () => {
      await api?.close();
      await db?.close();
      await admin?.end();
    });

    it('answers 503 (never 500) throughout, health follows each step with its reason, and readiness returns', async () => {
      const ws = await makeWorkspace(db);
      const token = await makeToken(db, [ws.id]);
      expect((await createRest(api, ws, token)).status).toBe(200);
      const atStart = await health(api);
      expect(atStart).toMatchObject({ http: 200, ready: true });

      // 1. Dropped: every call is the outage 503; health is 503, database down, and says why.
      await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
      for (const r of [
        await createRest(api, ws, token),
        await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { token }),
        await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id }, token),
      ]) {
        expect(r.status, r.text).toBe(503);
        // The outage 503 — or, once a background pass (the attestation interval, recovery, the on-demand request poll)
        // has met the dropped database first, readiness's 503 naming it. Never a 500, never a stale "ready".
        expect(r.text).toMatch(new RegExp(`${UNAVAILABLE.error}|schema attestation has not passed: .*does not exist`));
      }
      let h = atStart;
      await until(async () => !(h = await health(api)).attestation.ready, 5_000, 'not ready while dropped');
      expect(h).toMatchObject({ http: 503, ready: false, database: 'down' });
      expect(h.attestation.reasons.join(' ')).toContain('does not exist');
      expect(h.attestation.checked_at > atStart.attestation.checked_at).toBe(true);

      // 2. Re-created empty: the database answers, but nothing is there. The reported bug: health said 200 ready.
      await admin.query(`CREATE DATABASE "${name}"`);
      const createdAt = new Date().toISOString();
      await until(
        async () => (h = await health(api)).attestation.checked_at > createdAt,
        10_000,
        'a check on the empty database',
      );
      expect(h).toMatchObject({ http: 503, ready: false, database: 'up' });
      expect(h.attestation.reasons).toEqual(['table tasks is missing']);
      // The outage, or (when the token was still cached) the identity gate saying why (SPEC §12); never a 500.
      const empty = await createRest(api, ws, token);
      expect(empty.status).toBe(503);
      expect([
        UNAVAILABLE.error,
        'external identity is unavailable: schema attestation has not passed: table tasks is missing',
      ]).toContain((empty.json as { error: string }).error);

      // 3. The operator migrates (as `tether migrate` does, from its own connection): ready again, no restart.
      const cli = openDb(url);
      try {
        await migrate(cli);
        const ws2 = await makeWorkspace(cli);
        const token2 = await makeToken(cli, [ws2.id]);
        await until(async () => (await health(api)).ready, 10_000, 'ready after the migration');
        expect((await createRest(api, ws2, token2)).status).toBe(200);
      } finally {
        await cli.close();
      }
    }, 60_000);
  },
);
