// In-process cost of a zero-step SQLite Created under storage variants, compared in one run: each variant gets its
// own database (seeded like the bench's), warmed up, then measured in alternating rounds of sequential creates through
// the real createTask. Reports CPU µs per create (process.cpuUsage), wall µs, and bytes/write syscalls per create
// from /proc/self/io (the WAL frames and the checkpoints' page writes).
//
// The variants are in VARIANTS below; those marked "measurement only" change what Tether stores or promises and are
// there to price a b-tree or a commit, not as candidates. docs/BENCHMARKS.md has the results.
//
//   npx tsx bench/sqlite-create-cost.ts [--variants=base,ac1000] [--rounds=4] [--creates=5000] [--warm=2000]
//   npx tsx bench/sqlite-create-cost.ts --lookup [--tasks=200000] [--variants=base,ac1000]
//   npx tsx bench/sqlite-create-cost.ts --concurrency=16   (creates in flight together: commits per create shown)
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/server/config';
import { createServices } from '../src/server/create-services';
import type { SqliteDb } from '../src/server/db/drivers';
import { migrate } from '../src/server/db/schema/migrate';
import type { Services } from '../src/server/services';
import { bulkLoad, seed } from './lib/seed';
import { inProcess, type InProcess } from './lib/tether';

const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k!, v ?? 'true'] as const;
  }),
);
const rounds = Number(args.get('rounds') ?? 4);
const creates = Number(args.get('creates') ?? 5000);
const warm = Number(args.get('warm') ?? 2000);
const tasks = Number(args.get('tasks') ?? 10000);
const lookupMode = args.has('lookup');
/** Calls in flight at once (group commit shares a COMMIT between the transactions that end together). */
const concurrency = Number(args.get('concurrency') ?? 1);
const names = (args.get('variants') ?? 'base,ac1000').split(',');

interface Variant {
  /** Set on the empty file before anything else touches it. */
  pageSize?: number;
  /** Run on the driver's connection after migrate and seeding. */
  after?: (raw: Database.Database) => void;
  /** Rewrites the driver's statement texts / transaction control. */
  patch?: (db: SqliteDb) => void;
}

function rebuildWithoutAutoincrement(raw: Database.Database): void {
  const table = raw.prepare("SELECT sql FROM sqlite_master WHERE name = 'task_revisions'").pluck().get() as string;
  const indexes = raw
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'task_revisions' AND sql IS NOT NULL")
    .pluck()
    .all() as string[];
  raw.pragma('foreign_keys = OFF');
  raw.exec('BEGIN');
  raw.exec(table.replace('task_revisions', 'task_revisions_x').replace(/ AUTOINCREMENT/i, ''));
  raw.exec('INSERT INTO task_revisions_x SELECT * FROM task_revisions; DROP TABLE task_revisions');
  raw.exec('ALTER TABLE task_revisions_x RENAME TO task_revisions');
  for (const ix of indexes) raw.exec(ix);
  raw.exec('COMMIT');
  raw.pragma('foreign_keys = ON');
}

/** Patches the driver's private statement preparation to rewrite one statement text. */
function rewrite(db: SqliteDb, from: RegExp, to: (text: string) => string): void {
  const d = db as unknown as { prepare: (text: string, params: readonly unknown[]) => unknown };
  const original = d.prepare.bind(d);
  d.prepare = (text, params) => original(from.test(text) ? to(text) : text, params);
}

const VARIANTS: Record<string, Variant> = {
  // The driver as it is.
  base: {},
  p4096: { pageSize: 4096 },
  p2048: { pageSize: 2048 },
  p1024: { pageSize: 1024 },
  p8192: { pageSize: 8192 },
  // BEGIN IMMEDIATE / COMMIT through prepared statements instead of exec.
  stmt: {
    patch(db) {
      const cache = new Map<string, Database.Statement>();
      const d = db as unknown as { control: (sql: string) => void };
      const original = d.control.bind(d);
      d.control = (sql) => {
        if (sql !== 'BEGIN IMMEDIATE' && sql !== 'COMMIT') return original(sql);
        let s = cache.get(sql);
        if (!s) cache.set(sql, (s = db.raw.prepare(sql)));
        s.run();
      };
    },
  },
  // SQLite's default checkpoint threshold (the driver's is WAL_AUTOCHECKPOINT_PAGES).
  ac1000: { after: (raw) => raw.pragma('wal_autocheckpoint = 1000') },
  ac8000: { after: (raw) => raw.pragma('wal_autocheckpoint = 8000') },
  ac4000: { after: (raw) => raw.pragma('wal_autocheckpoint = 4000') },
  ac16000: { after: (raw) => raw.pragma('wal_autocheckpoint = 16000') },
  // Measurement only: no checkpoint at all (what checkpointing costs on the committing thread).
  ac0: { after: (raw) => raw.pragma('wal_autocheckpoint = 0') },
  // Measurement only (not durable across a power loss): what the checkpoints' fsyncs cost in wall time.
  syncoff: { after: (raw) => raw.pragma('synchronous = OFF') },
  // Every checkpoint on the committing thread (SQLite's automatic one), as before the background checkpointer.
  nobg: { patch: (db) => void db.checkpointer?.stop() },
  // Savepoint journals (and temporary b-trees) in temporary files once past 64 KB, as SQLite does by default.
  tempfile: { after: (raw) => raw.pragma('temp_store = DEFAULT') },
  cache2000: { after: (raw) => raw.pragma('cache_size = -2000') },
  cellcheck: { after: (raw) => raw.pragma('cell_size_check = ON') },
  fullfsync: { after: (raw) => raw.pragma('checkpoint_fullfsync = ON') },
  jlimit: { after: (raw) => raw.pragma('journal_size_limit = 4194304') },
  // Measurement only (changes task_revisions' schema): what sqlite_sequence costs.
  noautoinc: { after: rebuildWithoutAutoincrement },
  // Measurement only (numbers could be reused after a delete): what the workspace row's write costs.
  noupdate: {
    patch(db) {
      rewrite(
        db,
        /^UPDATE workspaces SET task_sequence = task_sequence \+ 1 WHERE id = \$1\s+RETURNING task_sequence, prefix, root_path/,
        (text) =>
          text.replace(
            /^UPDATE workspaces SET task_sequence = task_sequence \+ 1 WHERE id = \$1\s+RETURNING task_sequence,/,
            'SELECT (SELECT COALESCE(MAX(t.number), 0) + 1 FROM tasks t WHERE t.workspace_id = workspaces.id) AS task_sequence,',
          ) + ' FROM workspaces WHERE id = $1',
      );
    },
  },
};

function io(): { wchar: number; syscw: number } {
  const text = readFileSync('/proc/self/io', 'utf8');
  const get = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(text)![1]);
  return { wchar: get('wchar'), syscw: get('syscw') };
}

interface Prepared {
  name: string;
  dir: string;
  services: Services;
  p: InProcess;
  db: SqliteDb;
}

async function prepare(name: string): Promise<Prepared> {
  const v = VARIANTS[name];
  if (!v) throw new Error(`unknown variant ${name}`);
  const dir = mkdtempSync(join(tmpdir(), 'tether-create-cost-'));
  const file = join(dir, 'bench.db');
  if (v.pageSize) {
    const raw = new Database(file);
    raw.pragma(`page_size = ${v.pageSize}`);
    raw.pragma('journal_mode = WAL');
    raw.close();
  }
  const services = createServices({
    config: { ...loadConfig(), databaseUrl: `file:${file}`, failpointsEnabled: false },
  });
  const db = services.store.driver as SqliteDb;
  await migrate(db);
  await services.readiness.refresh(db);
  const seeded = await seed(db);
  await bulkLoad(db, seeded.main, tasks);
  v.after?.(db.raw);
  v.patch?.(db);
  const pageSize = db.raw.pragma('page_size', { simple: true });
  console.error(`${name}: page_size ${String(pageSize)}, ${tasks} tasks loaded`);
  const p = inProcess(services, seeded.actor, seeded.main.id, tasks);
  return { name, dir, services, p, db };
}

async function measure(fn: () => Promise<void>, n: number, db: SqliteDb) {
  const io0 = io();
  const cpu0 = process.cpuUsage();
  const commits0 = db.commits;
  const t0 = process.hrtime.bigint();
  let left = n;
  const loop = async () => {
    while (left-- > 0) await fn();
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const wall = Number(process.hrtime.bigint() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const io1 = io();
  return {
    cpu: (cpu.user + cpu.system) / n,
    sys: cpu.system / n,
    wall: wall / n,
    bytes: (io1.wchar - io0.wchar) / n,
    writes: (io1.syscw - io0.syscw) / n,
    commits: (db.commits - commits0) / n,
  };
}

const prepared: Prepared[] = [];
for (const name of names) prepared.push(await prepare(name));
const results = new Map<string, Array<Awaited<ReturnType<typeof measure>>>>();
for (const x of prepared) {
  results.set(x.name, []);
  // Lookups are measured after creates have filled the WAL (as a server's reads run between its writes).
  await measure(x.p.created, warm, x.db);
}
for (let r = 0; r < rounds; r++) {
  for (const x of r % 2 === 0 ? prepared : [...prepared].reverse()) {
    const m = await measure(lookupMode ? x.p.lookup : x.p.created, creates, x.db);
    results.get(x.name)!.push(m);
    console.error(
      `round ${r} ${x.name}: cpu ${m.cpu.toFixed(1)} µs (sys ${m.sys.toFixed(1)}), wall ${m.wall.toFixed(1)} µs, ` +
        `${(m.bytes / 1024).toFixed(1)} KB written in ${m.writes.toFixed(1)} writes, ${m.commits.toFixed(2)} commits`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\n${lookupMode ? 'lookup' : 'create'} medians over ${rounds} rounds of ${creates}, ${concurrency} in flight (${tasks} tasks):`,
);
for (const [name, ms] of results) {
  console.log(
    `${name.padEnd(10)} cpu ${median(ms.map((m) => m.cpu)).toFixed(1)} µs (min ${Math.min(...ms.map((m) => m.cpu)).toFixed(1)})  [${ms.map((m) => m.cpu.toFixed(0)).join(' ')}]` +
      `  sys ${median(ms.map((m) => m.sys)).toFixed(1)}  wall ${median(ms.map((m) => m.wall)).toFixed(1)} µs` +
      `  ${(median(ms.map((m) => m.bytes)) / 1024).toFixed(1)} KB  ${median(ms.map((m) => m.writes)).toFixed(1)} writes` +
      `  ${median(ms.map((m) => m.commits)).toFixed(2)} commits`,
  );
}
for (const x of prepared) {
  await x.services.store.close();
  rmSync(x.dir, { recursive: true, force: true });
}
process.exit(0);
