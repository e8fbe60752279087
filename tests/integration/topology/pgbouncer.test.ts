// SPEC §12 "Production PostgreSQL": Tether behind PgBouncer in transaction pooling mode (Debian's 1.18, which keeps no
// prepared statements in that mode). Through `?pgbouncer=true` it keeps no session state between transactions:
// unnamed statements, no session locks, nothing that needs LISTEN. Two server processes race on the same identities
// through the pooler (the unique index still settles every race, SPEC §2.2) and the REST core works through it.
// Migrations hold a session lock, so they run on DIRECT_DATABASE_URL; `tether migrate` and the server refuse to
// migrate through the pooler without it, in one line that says what to set.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import type { Db } from '../../../src/server/db/types';
import { testDialect } from '../../support/db';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken } from '../../support/http';
import { startPgBouncer, type PgBouncer } from '../../support/postgres-cluster';
import { createDatabase } from '../../support/postgres-server';
import { runTether as tether, startServerProcess, type ServerProcess } from '../../support/processes';
import { EVENTS } from '../../support/events';

const run = testDialect() === 'postgres' && !process.env.TEST_DATABASE_URL;

describe.runIf(run)('through PgBouncer in transaction pooling mode', () => {
  let bouncer: PgBouncer;
  let direct: string;
  let pooled: string;
  let db: Db;
  let servers: ServerProcess[] = [];
  let ws: TestWorkspace;
  let token: string;

  beforeAll(async () => {
    const server = inject('pgUrl');
    // A small server pool, so the two processes' connections really do share server connections.
    bouncer = await startPgBouncer(Number(new URL(server).port), { poolSize: 4 });
    const name = `pgbouncer_${uniq()}`;
    direct = await createDatabase(server, name);
    pooled = bouncer.url(name);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.close();
    bouncer?.stop();
  });

  it('`tether migrate` through the pooler without DIRECT_DATABASE_URL refuses in one line and changes nothing', async () => {
    const r = await tether(['migrate'], { DATABASE_URL: pooled });
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: .*PgBouncer.*set DIRECT_DATABASE_URL/),
    ]);
    const probe = openDb(direct, { max: 1 });
    try {
      expect(await probe.one<{ t: unknown }>("SELECT to_regclass('_prisma_migrations') AS t")).toEqual({ t: null });
    } finally {
      await probe.close();
    }
  });

  it('the server started through the pooler without DIRECT_DATABASE_URL stops and says what to set', async () => {
    // (Stopped again should it start after all, so a failing run leaves no process behind.)
    const started = startServerProcess({ DATABASE_URL: pooled }).then(async (s) => void (await s.stop()));
    await expect(started).rejects.toThrow(/DIRECT_DATABASE_URL/);
  });

  it('`tether migrate` with DIRECT_DATABASE_URL migrates PostgreSQL itself', async () => {
    const r = await tether(['migrate', '--json'], { DATABASE_URL: pooled, DIRECT_DATABASE_URL: direct });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { applied: string[]; version: number; ready: boolean };
    expect(out.applied.length).toBe(out.version);
    expect(out.ready).toBe(true);
  });

  describe('two server processes', () => {
    beforeAll(async () => {
      db = openDb(direct, { max: 2 });
      ws = await makeWorkspace(db);
      token = await makeToken(db, [ws.id]);
      // Each process migrates (nothing left) on the direct URL, then serves through the pooler.
      const env = { DATABASE_URL: pooled, DIRECT_DATABASE_URL: direct, TETHER_RATE_LIMIT_PER_SEC: '0' };
      servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    }, 120_000);

    it('64 simultaneous creates of one identity across both → one task, one Created, 63 Found, no error', async () => {
      const ext = uniq('pgb-');
      const responses = await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          call(servers[i % 2]!.url, 'POST', '/api/v1/tasks', {
            token,
            body: { workspace_id: ws.id, external_id: ext, title: `T${i}` },
          }),
        ),
      );
      expect(responses.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      const bodies = responses.map((r) => r.json as { id: string; deduplicated: boolean });
      expect(bodies.filter((b) => !b.deduplicated)).toHaveLength(1);
      expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
      expect(
        await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1 AND type = 'task.created'`, [
          bodies[0]!.id,
        ]),
      ).toBe(1);
    });

    it('many identities raced across both, some with a planned step (two phases) → exactly one task each, no error', async () => {
      const ids = Array.from({ length: 20 }, () => uniq('pgbm-'));
      const responses = await Promise.all(
        ids.flatMap((ext, n) =>
          [0, 1, 2, 3].map((i) => {
            const extra = n % 2 ? { remote_contributions: [`https://git.example/acme/app/pull/${ext}`] } : {};
            return call(servers[i % 2]!.url, 'POST', '/api/v1/tasks', {
              token,
              body: { workspace_id: ws.id, external_id: ext, title: 'T', ...extra },
            });
          }),
        ),
      );
      expect(responses.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`)).toEqual([]);
      for (const ext of ids)
        expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext]), ext).toBe(1);
    });

    it('the REST core through the pooler: create, Found, lookup, update, release, delete', async () => {
      const [a, b] = servers.map((s) => s.url) as [string, string];
      const ext = uniq('core-');
      const created = await call(a, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, external_id: ext, title: 'Core' },
      });
      expect(created.status).toBe(200);
      const task = created.json as { id: string; deduplicated: boolean; external_id: string };
      expect(task).toMatchObject({ deduplicated: false, external_id: ext });

      const found = await call(b, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, external_id: ext, title: 'Drifted' },
      });
      expect(found.json).toMatchObject({ id: task.id, deduplicated: true, title: 'Core' });

      const lookup = await call(b, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
        token,
      });
      expect(lookup.status).toBe(200);
      expect(lookup.json).toMatchObject({ id: task.id });

      const changed = await call(a, 'PATCH', `/api/v1/tasks/${task.id}`, { token, body: { title: 'Core, renamed' } });
      expect(changed.status).toBe(200);
      expect((await call(b, 'GET', `/api/v1/tasks/${task.id}`, { token })).json).toMatchObject({
        title: 'Core, renamed',
      });

      const key = randomUUID();
      expect(
        (
          await call(b, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
            token,
            headers: { 'idempotency-key': key },
          })
        ).status,
      ).toBe(204);
      // The same release replayed on the other process: the stored outcome (SPEC §7).
      expect(
        (
          await call(a, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
            token,
            headers: { 'idempotency-key': key },
          })
        ).status,
      ).toBe(204);
      expect(
        (await call(a, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, { token })).status,
      ).toBe(404);
      const again = await call(a, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, external_id: ext, title: 'Core again' },
      });
      expect(again.json).toMatchObject({ deduplicated: false });
      expect((again.json as { id: string }).id).not.toBe(task.id);

      expect((await call(b, 'DELETE', `/api/v1/tasks/${task.id}`, { token })).status).toBe(204);
      expect((await call(a, 'GET', `/api/v1/tasks/${task.id}`, { token })).status).toBe(404);
      expect(
        await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id = $2', [ws.id, ext]),
      ).toBe(1);
    });
  });
});
