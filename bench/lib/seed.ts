// Seeding through the domain (createWorkspace, createApiToken — what the CLI calls), and bulk rows in plain
// SQL: a million tasks through the app would take longer than the whole benchmark. Bulk rows look like settled
// creates (creation_state completed, external_id_settled_at set), so Found returns them as FoundSettled.
import pg from 'pg';
import { authenticate } from '../../src/server/auth/authenticate';
import type { Actor } from '../../src/server/domain/access';
import { Store } from '../../src/server/db/store';
import type { Db } from '../../src/server/db/types';
import { createApiToken } from '../../src/server/domain/tokens/api-tokens';
import { createWorkspace } from '../../src/server/domain/workspaces/create-workspace';
import { TokenCache } from '../../src/server/domain/tokens/token-cache';

export interface Seeded {
  /** Found/Created/lookup over every surface; `smallTasks` bulk rows `ext-1 … ext-N`. */
  main: { id: string; stepId: string; prefix: string };
  /** The raw driver's insert loop writes here, so it never disturbs Tether's numbering. */
  baseline: { id: string; stepId: string; prefix: string };
  race: { id: string; stepId: string; prefix: string };
  /** The same race through PgBouncer (its identities must be new there too). */
  racePooled: { id: string; stepId: string; prefix: string };
  /** `smallTasks` bulk rows, measured before the large load: the "10 thousand" side of the scale comparison. */
  small: { id: string; stepId: string; prefix: string };
  /** Bulk-loaded later with `largeTasks` rows for the scale comparison. */
  scale: { id: string; stepId: string; prefix: string };
  /** The workspace whose id sorts after every other's (tailWorkspace), loaded by loadTail. */
  tail: { id: string; stepId: string; prefix: string };
  token: string;
  actor: Actor;
}

async function workspace(store: Store, name: string, prefix: string) {
  const ws = await createWorkspace(store, { name, prefix });
  return { id: ws.id, stepId: ws.steps[0]!.id, prefix };
}

/**
 * A workspace whose id sorts after every other's (the largest UUID text), loaded by loadTail. A create's index entries
 * that lead with its workspace id (the task's number, creation time and identity, the operation's creation time and
 * identity, the revision's event) go at the end of its workspace's range; when
 * that page splits, PostgreSQL logs half a page (~4 KB) in the WAL, unless the range is the index's last, where it
 * splits off an almost empty page instead. Which range is last would otherwise follow the random ids `seed` draws —
 * differently on each run, for Tether's creates (`main`) and for the raw insert (`baseline`) alike, which moved the
 * raw insert's WAL between 1,063 and 1,196 bytes and a REST Created's by some 80. With this one last, each measured
 * workspace is one among others, as every workspace but one is in a database with many, on every run.
 */
async function tailWorkspace(db: Db): Promise<Seeded['tail']> {
  const id = 'ffffffff-ffff-4fff-bfff-ffffffffffff';
  const stepId = 'ffffffff-ffff-4fff-bfff-fffffffffffe';
  const at = new Date().toISOString();
  await db.run(
    'INSERT INTO workspaces (id, name, prefix, task_sequence, created_at, updated_at) VALUES ($1, $2, $3, 0, $4, $4)',
    [id, 'Bench tail', 'TAIL', at],
  );
  await db.run(
    'INSERT INTO workflow_steps (id, workspace_id, name, position, is_done, created_at) VALUES ($1, $2, $3, 0, $4, $5)',
    [stepId, id, 'Todo', db.dialect === 'postgres' ? false : 0, at],
  );
  return { id, stepId, prefix: 'TAIL' };
}

export async function seed(db: Db): Promise<Seeded> {
  const store = new Store(db); // over the caller's connections; closing `db` is the caller's
  const main = await workspace(store, 'Bench main', 'BENCH');
  const baseline = await workspace(store, 'Bench baseline', 'BASE');
  const race = await workspace(store, 'Bench race', 'RACE');
  const racePooled = await workspace(store, 'Bench race through PgBouncer', 'RACEPGB');
  const small = await workspace(store, 'Bench small', 'SMALL');
  const scale = await workspace(store, 'Bench scale', 'SCALE');
  const tail = await tailWorkspace(db);
  const { token } = await createApiToken(store, {
    name: 'bench',
    workspaceIds: [main.id, baseline.id, race.id, racePooled.id, small.id, scale.id],
    scopes: ['tasks:read', 'tasks:write'],
  });
  const auth = await authenticate(
    { store, tokenCache: new TokenCache(0) },
    { authorization: `Bearer ${token}` },
    { method: 'POST' },
  );
  if (!auth) throw new Error('the bench token does not authenticate');
  return { main, baseline, race, racePooled, small, scale, tail, token, actor: auth.actor };
}

/**
 * `count` settled tasks `ext-1 … ext-count` in one statement per dialect, then fresh planner statistics. Their ids are
 * `idPrefix` and their number (by default the workspace prefix in lower case and a dash).
 */
export async function bulkLoad(
  db: Db,
  ws: { id: string; stepId: string; prefix: string },
  count: number,
  idPrefix = `${ws.prefix.toLowerCase()}-`,
): Promise<number> {
  const started = Date.now();
  const insert = `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision,
      creation_state, external_id, external_id_settled_at)`;
  const params = [idPrefix, ws.id, ws.prefix, ws.stepId, new Date().toISOString(), count];
  if (db.dialect === 'postgres') {
    // A client of its own: the app pool's 30 s query timeout is shorter than a million-row load on a busy machine.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await client.query(
        `${insert} SELECT $1::text || g, $2, g, $3::text || '-' || g, 'bulk task ' || g, $4, $5::timestamptz, $5::timestamptz, 1,
           'completed', 'ext-' || g, $5::timestamptz FROM generate_series(1, $6::int) g`,
        params,
      );
    } finally {
      await client.end();
    }
  } else {
    await db.run(
      `${insert} WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < $6)
       SELECT $1 || g, $2, g, $3 || '-' || g, 'bulk task ' || g, $4, $5, $5, 1, 'completed', 'ext-' || g, $5 FROM s`,
      params,
    );
  }
  await db.run('UPDATE workspaces SET task_sequence = $2 WHERE id = $1', [ws.id, count]);
  if (db.dialect === 'postgres') {
    // The table as it is once PostgreSQL has caught up with a bulk import: vacuumed (hint bits and visibility map set,
    // so the first read of each row does not write its page back, and autovacuum does not start over a million fresh
    // rows while the lookups are timed), analyzed and checkpointed. A client of its own (the pool's query timeout),
    // one statement at a time (VACUUM cannot run in a transaction block, which a script of several statements is).
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      for (const sql of ['VACUUM (ANALYZE) tasks', 'ANALYZE', 'CHECKPOINT']) await client.query(sql);
    } finally {
      await client.end();
    }
  } else {
    await db.exec('ANALYZE');
  }
  return (Date.now() - started) / 1000;
}

/**
 * `tail`'s rows: settled tasks, each with the operation and the revision 1 a create stores, enough to fill index pages
 * of their own after every other workspace's (tailWorkspace). Their ids sort before any UUID a create draws, so the
 * indexes that lead with an id (not a workspace) keep the order they had without them. Nothing reads them.
 */
export async function loadTail(db: Db, tail: Seeded['tail']): Promise<void> {
  await bulkLoad(db, tail, 1_000, '00000000-tail-');
  await db.run(
    `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, created_at, updated_at, finished_at)
     SELECT id, workspace_id, id, 'bench', external_id, 'completed', created_at, created_at, created_at FROM tasks WHERE workspace_id = $1`,
    [tail.id],
  );
  await db.run(
    `INSERT INTO task_revisions (task_id, revision, workspace_id, change, actor_id, snapshot, created_at, event_type)
     SELECT id, 1, workspace_id, 'create', 'bench', '{}', created_at, 'task.created' FROM tasks WHERE workspace_id = $1`,
    [tail.id],
  );
}
