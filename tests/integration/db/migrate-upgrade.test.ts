// SPEC §12: a database migrated by the runner before Prisma Migrate's layout (schema v4, `schema_migrations`)
// upgrades in place with nothing lost: its history is carried into `_prisma_migrations` with the checksums it
// was recorded with, then any new migration applies; a second run changes nothing.
import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attest } from '../../../src/server/db/schema/attest';
import { openDb, type SqliteDb } from '../../../src/server/db/drivers';
import { migrate, PRISMA_DIR, readMigrations, schemaVersion } from '../../../src/server/db/schema/migrate';
import { LEGACY_MIGRATIONS, renderChecksum } from '../../../src/server/db/schema/migration-history';
import type { Db } from '../../../src/server/db/types';
import { eventPayload, type EventType } from '../../../src/server/model/events';
import { toTaskBody, type Task } from '../../../src/server/model/task';
import { emptyDb, freshDatabaseUrl, freshDb, testDialect } from '../../support/db';
import { testServices } from '../../support/fixtures';
import { readCatalog } from './catalog';
import { migrateToV4, V4_CHECKSUMS, v4File } from './legacy-v4';
import { writeMigration } from './migration-folders';
import { diagnoseHistory } from './prisma-engines';
import { makeSqliteTasksNocase } from './schema-edits';

const dialect = testDialect();
/** This version's migrations after the four a schema v4 database already has. */
const LATER = readMigrations(dialect).filter((m) => !Object.values(LEGACY_MIGRATIONS).includes(m.name));

/** Three rows in every table. Row i's text columns all hold `v<i>`, so every foreign key finds its parent row. */
async function populate(db: Db): Promise<void> {
  const catalog = await readCatalog(db);
  const done = new Set<string>(['schema_migrations']);
  const tables = [...catalog.keys()].filter((t) => !done.has(t));
  while (done.size <= tables.length) {
    const ready = tables.filter(
      (t) => !done.has(t) && catalog.get(t)!.foreignKeys.every((f) => f.table === t || done.has(f.table)),
    );
    if (ready.length === 0) break;
    for (const name of ready) {
      const table = catalog.get(name)!;
      const columns = table.columns.filter((c) => !c.autoincrement);
      for (const i of [1, 2, 3]) {
        const values = columns.map((c) => valueFor(name, c.name, c.type, i));
        const list = columns.map((c) => `"${c.name}"`).join(', ');
        await db.run(
          `INSERT INTO "${name}" (${list}) VALUES (${columns.map((_c, k) => `$${k + 1}`).join(', ')})`,
          values,
        );
      }
      done.add(name);
    }
  }
}

function valueFor(table: string, column: string, type: string, i: number): unknown {
  // SPEC §2.2: identities that differ only by case are different identities; one task holds none.
  if (table === 'tasks' && column === 'external_id') return [null, 'Case-7', 'case-7'][i - 1];
  if (type.includes('timestamp') || /_at$/.test(column))
    return new Date(Date.UTC(2026, 0, i, 12, 0, 0, 123)).toISOString();
  if (type.includes('bool')) return i % 2 === 1;
  if (type.includes('int')) return i;
  return `v${i}`;
}

/** Every row of every table but the bookkeeping, in a stable order: what "nothing lost" compares. */
async function snapshot(db: Db): Promise<Record<string, unknown[]>> {
  const catalog = await readCatalog(db);
  const out: Record<string, unknown[]> = {};
  for (const [name, table] of catalog) {
    if (name === 'schema_migrations' || name === '_prisma_migrations') continue;
    out[name] = await db.query(
      `SELECT * FROM "${name}" ORDER BY ${table.columns.map((c) => `"${c.name}"`).join(', ')}`,
    );
  }
  return out;
}

const historyRows = (db: Db) =>
  db.query<{
    migration_name: string;
    checksum: string;
    started_at: unknown;
    finished_at: unknown;
    logs: unknown;
    rolled_back_at: unknown;
    applied_steps_count: number;
  }>(
    'SELECT migration_name, checksum, started_at, finished_at, logs, rolled_back_at, applied_steps_count FROM _prisma_migrations ORDER BY migration_name',
  );
const ms = (v: unknown) => (typeof v === 'number' ? v : Date.parse(String(v)));

/**
 * `before` as it must look after later migrations: the same rows, plus NULL in every column a later migration added
 * to a table (new columns are nullable, SPEC §12), and every table a later migration created still empty.
 */
function asMigrated(before: Record<string, unknown[]>, after: Record<string, unknown[]>): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [name, rows] of Object.entries(after)) {
    const old = before[name] as Array<Record<string, unknown>> | undefined;
    if (!old) {
      out[name] = [];
      continue;
    }
    const added = Object.keys((rows[0] ?? {}) as Record<string, unknown>).filter((c) => old[0] && !(c in old[0]));
    out[name] = old.map((r) => ({ ...r, ...Object.fromEntries(added.map((c) => [c, null])) }));
  }
  return out;
}

/**
 * `expected` with what 20261203000002_events_in_revisions moves: each outbox row's seq, id and type on the revision of
 * the same task and number (every populated event has one), and no `outbox_events` table.
 */
function withEventsInRevisions(
  before: Record<string, unknown[]>,
  expected: Record<string, unknown[]>,
): Record<string, unknown[]> {
  const events = before.outbox_events as Array<Record<string, unknown>>;
  const revisions = (expected.task_revisions as Array<Record<string, unknown>>).map((r) => {
    const e = events.find((x) => x.task_id === r.task_id && Number(x.revision) === Number(r.revision))!;
    return { ...r, seq: e.seq, event_id: e.id, event_type: e.type };
  });
  const { outbox_events: _gone, ...rest } = expected;
  return { ...rest, task_revisions: revisions };
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const sql =
    dialect === 'postgres'
      ? 'SELECT to_regclass($1) IS NOT NULL AS e'
      : `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = $1) AS e`;
  return Boolean((await db.one<{ e: unknown }>(sql, [name]))?.e);
}

describe('upgrading a schema v4 database in place (SPEC §12)', () => {
  const opened: Db[] = [];
  const openV4 = async () => {
    const url = await freshDatabaseUrl();
    const db = openDb(url);
    opened.push(db);
    const appliedAt = await migrateToV4(db);
    return { db, url, appliedAt };
  };
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });

  it('moved each numbered file byte for byte, so the checksums v4 databases recorded still hold', () => {
    for (const [name, checksum] of Object.entries(V4_CHECKSUMS[dialect]))
      expect(renderChecksum(v4File(dialect, name)), name).toBe(checksum);
  });

  it('carries the history over, keeps every row and the identity index, applies the later migrations, and a second run changes nothing', async () => {
    const { db, url, appliedAt } = await openV4();
    await populate(db);
    const before = await snapshot(db);
    expect(Object.values(before).every((rows) => rows.length === 3)).toBe(true);
    expect(await schemaVersion(db)).toBe(4);

    const result = await migrate(db);
    expect(result).toMatchObject({ applied: LATER.map((m) => m.name), version: 4 + LATER.length });
    expect(result.rebuild).toBeUndefined();
    const migrated = await snapshot(db);
    expect(migrated).toEqual(withEventsInRevisions(before, asMigrated(before, migrated)));
    expect(await tableExists(db, 'schema_migrations')).toBe(false);
    const recorded = (name: string, checksum: string) => ({
      migration_name: name,
      checksum,
      started_at: expect.anything(),
      finished_at: expect.anything(),
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    });
    expect(await historyRows(db)).toEqual([
      ...Object.entries(LEGACY_MIGRATIONS).map(([old, name]) => recorded(name, V4_CHECKSUMS[dialect][old]!)),
      ...LATER.map((m) => recorded(m.name, m.checksum)),
    ]);
    for (const row of await historyRows(db)) {
      const old = Object.keys(LEGACY_MIGRATIONS).find((k) => LEGACY_MIGRATIONS[k] === row.migration_name);
      if (old)
        expect([ms(row.started_at), ms(row.finished_at)]).toEqual([
          Date.parse(appliedAt[old]!),
          Date.parse(appliedAt[old]!),
        ]);
    }

    // The upgraded catalog is a freshly migrated one: every table, column and index of the later migrations too
    // (the open-operations index only holds open operations).
    const fresh = await freshDb();
    opened.push(fresh);
    expect([...(await readCatalog(db))]).toEqual([...(await readCatalog(fresh))]);
    expect(
      (await readCatalog(db))
        .get('creation_operations')!
        .indexes.find((i) => i.name === 'idx_creation_operations_open'),
    ).toMatchObject({
      columns: ['lease_expires_at'],
      predicate: expect.stringMatching(/preparing.*completing.*aborting/),
    });
    // The events live in their revisions, indexed by task and revision and, for the rows with an event, by workspace
    // and seq; nothing indexes the event id (nothing reads it).
    expect(await tableExists(db, 'outbox_events')).toBe(false);
    expect(
      (await readCatalog(db))
        .get('task_revisions')!
        .indexes.map((i) => i.name)
        .sort(),
    ).toEqual(['idx_task_revisions_workspace_events', 'uniq_task_revisions_task_revision']);

    // The identity index still settles identity: attested, and a second holder of a held identity is refused.
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [] });
    const duplicate = db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
       VALUES ('dup', 'v2', 99, 'X-99', 't', 'v2', $1, $1, 'created', 'Case-7')`,
      [new Date().toISOString()],
    );
    await expect(duplicate).rejects.toThrow(
      /uniq_tasks_external_id|UNIQUE constraint failed: tasks\.workspace_id, tasks\.external_id/,
    );

    const history = await historyRows(db);
    expect(await migrate(db)).toMatchObject({ applied: [], version: 4 + LATER.length });
    expect(await historyRows(db)).toEqual(history);
    expect(await snapshot(db)).toEqual(migrated);
    await db.close();
    expect(await diagnoseHistory(url, dialect, readMigrations(dialect))).toEqual({
      editedMigrationNames: [],
      failedMigrationNames: [],
      hasMigrationsTable: true,
      history: null,
    });
  });

  it('applies a new migration after carrying the history over', async () => {
    const { db } = await openV4();
    await populate(db);
    const before = await snapshot(db);
    const root = mkdtempSync(join(tmpdir(), 'tether-prisma-'));
    cpSync(join(PRISMA_DIR, dialect, 'migrations'), join(root, dialect, 'migrations'), { recursive: true });
    writeMigration(root, '20270101000000_task_note', 'ALTER TABLE tasks ADD COLUMN note text;\n');
    const result = await migrate(db, readMigrations(dialect, root));
    expect(result).toMatchObject({
      applied: [...LATER.map((m) => m.name), '20270101000000_task_note'],
      version: 5 + LATER.length,
    });
    const after = await snapshot(db);
    expect(after.tasks).toEqual((before.tasks as Array<Record<string, unknown>>).map((t) => ({ ...t, note: null })));
    expect(after).toEqual(withEventsInRevisions(before, asMigrated(before, after)));
  });

  it('refuses, changing nothing, when a v4 file was edited after it was applied', async () => {
    const { db } = await openV4();
    await db.run(`UPDATE schema_migrations SET checksum = $1 WHERE name = '0002_events.sql'`, ['0'.repeat(64)]);
    await expect(migrate(db)).rejects.toThrow(
      /migration 0002_events\.sql \(now 20261130000002_events\) was edited after it was applied.*nothing was changed/,
    );
    expect(await tableExists(db, '_prisma_migrations')).toBe(false);
    expect(await db.query('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      [1, 2, 3, 4].map((version) => ({ version })),
    );
  });

  it('refuses, changing nothing, a v4 history recording a file this version does not have', async () => {
    const { db } = await openV4();
    await db.run(
      `INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (5, '0005_branch.sql', 'x', $1)`,
      [new Date().toISOString()],
    );
    await expect(migrate(db)).rejects.toThrow(
      'schema_migrations records 0005_branch.sql, which has no migration folder in this version; nothing was changed',
    );
    expect(await tableExists(db, '_prisma_migrations')).toBe(false);
  });

  it.runIf(dialect === 'sqlite')(
    'still rebuilds a v4 tasks table an old build made case-insensitive, keeping every row',
    async () => {
      const { db } = await openV4();
      makeSqliteTasksNocase(db as SqliteDb);
      await populate(db);
      const before = await snapshot(db);
      expect((await attest(db)).ready).toBe(false);
      const result = await migrate(db);
      expect(result.rebuild).toMatchObject({ ok: true, result: { rows: 3 } });
      const after = await snapshot(db);
      expect(after).toEqual(withEventsInRevisions(before, asMigrated(before, after)));
      expect(await attest(db)).toMatchObject({ ready: true });
    },
  );
});

describe('moving the events into their revisions (20261203000002_events_in_revisions)', () => {
  const opened: Db[] = [];
  afterEach(async () => {
    for (const db of opened.splice(0)) await db.close();
  });

  const at = (minute: number) => new Date(Date.UTC(2026, 11, 1, 12, minute, 0, 123)).toISOString();
  const task = (n: number, revision: number, externalId: string | null): Task => ({
    id: `00000000-0000-4000-8000-00000000000${n}`,
    workspaceId: 'ws-1',
    number: n,
    identifier: `T-${n}`,
    title: `task "${n}" \u2028 é`,
    description: n === 1 ? null : 'd',
    stepId: 'step-1',
    parentId: null,
    archivedAt: revision === 2 ? at(9) : null,
    createdAt: at(n),
    updatedAt: at(n + revision),
    revision,
    creationState: 'completed',
    externalId,
    externalIdSettledAt: externalId === null ? null : at(n),
  });

  it('delivers every event written before it with the same seq and the same JSON text, and numbering continues', async () => {
    const db = await emptyDb();
    opened.push(db);
    const all = readMigrations(dialect);
    const last = all.findIndex((m) => m.name === '20261203000002_events_in_revisions');
    await migrate(db, all.slice(0, last));

    // Written as the previous version wrote them: each revision, then its outbox row (revision 0 has none).
    const write = async (t: Task, change: string, type?: EventType) => {
      await db.run(
        'INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [t.id, t.revision, t.workspaceId, change, 'actor', JSON.stringify(toTaskBody(t)), t.updatedAt],
      );
      if (!type) return;
      const id = randomUUID();
      await db.run(
        'INSERT INTO outbox_events (id, workspace_id, task_id, revision, type, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [
          id,
          t.workspaceId,
          t.id,
          t.revision,
          type,
          JSON.stringify(eventPayload({ id, type, task: t, at: t.updatedAt })),
          t.updatedAt,
        ],
      );
    };
    await write(task(1, 0, 'ext-1'), 'begin');
    await write(task(2, 0, null), 'begin');
    await write(task(1, 1, 'ext-1'), 'create', 'task.created');
    await write(task(2, 1, null), 'create', 'task.created');
    await write(task(1, 2, null), 'release', 'task.updated');
    // Numbers drawn and not kept (the outbox's sequence moved past them, to 8): numbering continues after them, also
    // where a table's largest key alone would not say so (8 exceeds the 5 rows the upgrade keeps).
    for (const revision of [1, 2, 3, 4, 5]) await write(task(3, revision, null), 'update', 'task.updated');
    await db.run('DELETE FROM task_revisions WHERE task_id = $1', [task(3, 1, null).id]);
    await db.run('DELETE FROM outbox_events WHERE task_id = $1', [task(3, 1, null).id]);
    const old = await db.query<{ seq: unknown; payload: string }>(
      'SELECT seq, payload FROM outbox_events ORDER BY seq',
    );
    const oldTexts = old.map((e) => JSON.stringify({ seq: Number(e.seq), ...JSON.parse(e.payload) }));
    const drawn = 8;

    await migrate(db);
    const services = await testServices(db);
    const events = await services.store.events.listEvents({ after: 0, upTo: Number.MAX_SAFE_INTEGER, limit: 100 });
    expect(events.map((e) => JSON.stringify(e))).toEqual(oldTexts);
    const byWorkspace = await services.store.events.listEvents({
      workspaceId: 'ws-1',
      after: 0,
      upTo: Number.MAX_SAFE_INTEGER,
      limit: 100,
    });
    expect(byWorkspace.map((e) => JSON.stringify(e))).toEqual(oldTexts);
    expect((await services.store.events.listRevisions(task(1, 0, null).id)).map((r) => r.revision)).toEqual([0, 1, 2]);

    // The next revision is numbered after every seq the outbox ever drew, its event rebuilt in the same form.
    const next = task(2, 2, null);
    await services.store.transaction((tx) =>
      tx.events.insertRevision(next, 'update', 'actor', toTaskBody(next), next.updatedAt, {
        id: 'event-next',
        type: 'task.updated',
      }),
    );
    const [added] = await services.store.events.listEvents({
      after: Number(old.at(-1)!.seq),
      upTo: Number.MAX_SAFE_INTEGER,
      limit: 1,
    });
    // Revision 0s were numbered after the events (two of them), so the next seq is past those too.
    expect(added!.seq).toBeGreaterThan(drawn + 2);
    const { seq: _seq, ...payload } = added!;
    expect(JSON.stringify(payload)).toBe(
      JSON.stringify(eventPayload({ id: 'event-next', type: 'task.updated', task: next, at: next.updatedAt })),
    );
  });
});
