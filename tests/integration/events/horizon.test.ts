// SPEC §9 "at-least-once, in order": the horizon never calls an outbox seq final while a transaction that drew a
// lower seq is still open (PostgreSQL draws seq at insert, not at commit). The sample is the events repository's
// (PostgreSQL: pg_current_snapshot(), dialect/postgres/events.ts); the proof is domain/events/horizon.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import type { Db, Sql } from '../../../src/server/db/types';
import { settledHighWater } from '../../../src/server/domain/events/horizon';
import type { Services } from '../../../src/server/services';
import { freshDb, testDialect } from '../../support/db';
import { createDatabase, startPostgres, type PgServer } from '../../support/postgres-server';
import { EVENTS } from '../../support/events';
import { testServices } from '../../support/fixtures';

let db: Db;
let services: Services;
let server: PgServer | undefined;

beforeAll(async () => {
  if (testDialect() === 'postgres') {
    // A snapshot's xmin is cluster-wide: a transaction open in another test file's database (they share the run's
    // server) holds the horizon back, which is right, but makes "nothing in flight" untrue. This file gets a server
    // of its own, where the only transactions are its own.
    server = await startPostgres();
    db = openDb(await createDatabase(server.url, 'horizon'));
    await migrate(db);
  } else {
    db = await freshDb();
  }
  services = await testServices(db);
});
afterAll(async () => {
  await services?.store.close();
  server?.stop();
});

/**
 * A revision with its event as a change writes it: after a write of the same transaction (a change writes `tasks`
 * first; here revision 0), so the transaction holds an xid before the event's seq is drawn.
 */
async function writeEvent(sql: Sql): Promise<number> {
  const taskId = randomUUID();
  const at = new Date().toISOString();
  await sql.run(
    "INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ($1, 0, 'ws', 'begin', NULL, '{}', $2)",
    [taskId, at],
  );
  await sql.run(
    "INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_id, event_type) VALUES ($1, 1, 'ws', 'create', NULL, '{}', $2, $3, 'task.created')",
    [taskId, at, randomUUID()],
  );
  const row = await sql.one<{ seq: unknown }>(`SELECT MAX(seq) AS seq FROM ${EVENTS} WHERE task_id = $1`, [taskId]);
  return Number(row?.seq);
}

describe('the outbox horizon (SPEC §9)', () => {
  it('calls every committed seq final at once when nothing is in flight', async () => {
    const seq = await db.transaction((tx) => writeEvent(tx));
    expect(await settledHighWater(services.store.events, 0)).toBe(seq);
  });

  it.runIf(testDialect() === 'postgres')(
    'does not pass a seq whose lower neighbour is still uncommitted, then does once it commits',
    async () => {
      let commit!: () => void;
      const held = new Promise<void>((r) => (commit = r));
      let lowerSeq = 0;
      let written!: () => void;
      const lowerWritten = new Promise<void>((r) => (written = r));
      const open = db.transaction(async (tx) => {
        lowerSeq = await writeEvent(tx);
        written();
        await held;
      });
      await lowerWritten;
      const higherSeq = await db.transaction((tx) => writeEvent(tx));
      expect(higherSeq).toBeGreaterThan(lowerSeq);

      // The sample inside a store transaction is the dialect's too (it sees the open transaction).
      const inTx = await services.store.transaction((tx) => tx.events.sampleHorizon());
      expect(inTx.maxSeq).toBe(higherSeq);
      expect(inTx.xmin).toBeLessThan(inTx.xmax);
      expect(await settledHighWater(services.store.events, 200)).toBeLessThan(lowerSeq);

      commit();
      await open;
      expect(await settledHighWater(services.store.events, 2_000)).toBeGreaterThanOrEqual(higherSeq);
    },
  );
});
