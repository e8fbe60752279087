// SPEC §12 "Production PostgreSQL": a primary with a synchronous standby, two Tether server processes on the
// multi-host URL (`target_session_attrs=read-write`), creates under load, the primary killed with SIGKILL and the
// standby promoted. Tether follows the new primary without a restart: every create it acknowledged is on the new
// primary, held by the task it named, none is duplicated, nothing answers 500 (503 is the answer while no node is
// writable), and creates flow again on both processes within seconds. Prisma's cold paths, over the same pool,
// follow too (SPEC §4.4: a retry with the same external_id converges).
//
// The creates plan nothing (zero-step, SPEC §4.3: one commit), so this scenario is about the topology alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import { Store } from '../../../src/server/db/store';
import type { Db } from '../../../src/server/db/types';
import { testDialect } from '../../support/db';
import { count, makeWorkspace, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken } from '../../support/http';
import { startSyncCluster, type PgCluster } from '../../support/postgres-cluster';
import { createDatabase } from '../../support/postgres-server';
import { runTether, startServerProcess, type ServerProcess } from '../../support/processes';

const run = testDialect() === 'postgres' && !process.env.TEST_DATABASE_URL;

interface Answer {
  externalId: string;
  server: number;
  at: number;
  status: number;
  taskId?: string;
  text: string;
}

describe.runIf(run)('failover to a synchronous standby under load', () => {
  let cluster: PgCluster;
  let db: Db;
  let store: Store;
  let servers: ServerProcess[] = [];
  let ws: TestWorkspace;
  let token: string;
  let url: string;

  beforeAll(async () => {
    cluster = await startSyncCluster();
    const name = `failover_${uniq()}`;
    await createDatabase(cluster.adminUrl(), name);
    url = cluster.url(name);
    // The test's own connections take the multi-host URL too: they read the new primary after the failover.
    db = openDb(url, { max: 2, connectTimeoutMs: 500 });
    store = new Store(db);
    await migrate(db);
    ws = await makeWorkspace(db);
    token = await makeToken(db, [ws.id]);
    const env = {
      DATABASE_URL: url,
      TETHER_PG_CONNECT_TIMEOUT_MS: '500',
      TETHER_PG_QUERY_TIMEOUT_MS: '3000',
      TETHER_RATE_LIMIT_PER_SEC: '0',
      TETHER_LEASE_MS: '1000',
      TETHER_RECOVERY_POLL_MS: '200',
    };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await store?.close();
    cluster?.stop();
  });

  async function create(server: number, externalId: string): Promise<Answer> {
    const at = Date.now();
    try {
      const r = await call(servers[server]!.url, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, external_id: externalId, title: 'Failover' },
        signal: AbortSignal.timeout(20_000),
      });
      const taskId = r.status === 200 ? (r.json as { id: string }).id : undefined;
      return { externalId, server, at, status: r.status, taskId, text: r.text };
    } catch (err) {
      // A transport failure is no answer at all (the Tether processes stay up): recorded, and it fails the test.
      return { externalId, server, at, status: 0, text: String(err) };
    }
  }

  it('keeps every acknowledged create, duplicates none, answers no 500 and follows the new primary', async () => {
    const answers: Answer[] = [];
    const acknowledged = new Map<string, string>();
    let stop = false;
    // Six clients over both processes: each sends a new identity until it is acknowledged (a 503 is retried with the
    // same identity, as a caller must), and now and then sends an acknowledged one again (it must be Found).
    const clients = Array.from({ length: 6 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        const again = i % 5 === 4 ? [...acknowledged.keys()][Math.floor(Math.random() * acknowledged.size)] : undefined;
        const externalId = again ?? uniq(`fo-${c}-`);
        for (;;) {
          const a = await create((c + i) % 2, externalId);
          answers.push(a);
          if (a.status === 200) {
            acknowledged.set(externalId, acknowledged.get(externalId) ?? a.taskId!);
            break;
          }
          if (a.status !== 503 || stop) break;
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    });

    // Prisma Client (the cold paths) is built over the same pool before the failover.
    expect((await store.workspaces.list()).map((w) => w.id)).toContain(ws.id);
    await new Promise((r) => setTimeout(r, 1500));
    const before = acknowledged.size;
    cluster.killPrimary();
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, 300));
    cluster.promoteStandby();
    const promotedAt = Date.now();
    // Both processes create again without a restart.
    for (const server of [0, 1]) {
      await until(
        async () => (await create(server, uniq('probe-'))).status === 200,
        20_000,
        `process ${server} to create on the new primary`,
      );
    }
    const flowingAt = Date.now();
    await new Promise((r) => setTimeout(r, 1500));
    stop = true;
    await Promise.all(clients);

    // Only success or "unavailable" while no node is writable; never a 500, never a dropped request.
    const other = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(other.map((a) => `process ${a.server} +${a.at - killedAt} ms: ${a.status} ${a.text}`)).toEqual([]);
    expect(before).toBeGreaterThan(0);
    expect(acknowledged.size).toBeGreaterThan(before);
    // Liveness, not speed: creates flow again within seconds of the promotion.
    expect(flowingAt - promotedAt).toBeLessThan(15_000);

    // The test's connection follows too: it now reads the promoted standby.
    expect(await count(db, 'SELECT inet_server_port() AS n')).toBe(cluster.standbyPort);
    // Every acknowledged identity is on the new primary, held by the one task every 200 named.
    for (const [externalId, taskId] of acknowledged) {
      const named = new Set(
        answers.filter((a) => a.externalId === externalId && a.status === 200).map((a) => a.taskId),
      );
      expect([...named], `${externalId} answered with different tasks`).toEqual([taskId]);
      expect(
        await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE id = $1 AND workspace_id = $2 AND external_id = $3', [
          taskId,
          ws.id,
          externalId,
        ]),
        externalId,
      ).toBe(1);
    }
    expect(
      await count(
        db,
        'SELECT COUNT(*) AS n FROM (SELECT external_id FROM tasks WHERE workspace_id = $1 AND external_id IS NOT NULL GROUP BY external_id HAVING COUNT(*) > 1) d',
        [ws.id],
      ),
    ).toBe(0);
    // SPEC §6: nothing is left half-done on the new primary.
    await until(
      async () =>
        (await count(
          db,
          "SELECT COUNT(*) AS n FROM creation_operations WHERE state NOT IN ('completed', 'aborted')",
        )) === 0,
      15_000,
      'every creation operation to finish',
    );
    // Prisma's cold paths share the pool: they read the new primary as well.
    const prisma = await store.prisma();
    const [where] = await prisma.$queryRawUnsafe<Array<{ port: number }>>('SELECT inet_server_port() AS port');
    expect(where!.port).toBe(cluster.standbyPort);
    expect((await store.workspaces.list()).map((w) => w.id)).toContain(ws.id);
    console.info(
      `failover: ${answers.length} creates, ${acknowledged.size} identities acknowledged (${before} before the kill), ` +
        `${answers.filter((a) => a.status === 503).length} × 503; creating again ${flowingAt - promotedAt} ms after the promotion, ` +
        `${flowingAt - killedAt} ms after the kill`,
    );
  }, 60_000);

  it('the CLI and migrations take the same multi-host URL: `tether migrate` reaches the new primary', async () => {
    const migrated = await runTether(['migrate', '--json'], { DATABASE_URL: url });
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    expect(JSON.parse(migrated.stdout)).toMatchObject({ applied: [], ready: true });
  }, 60_000);
});
