// `npm run bench [-- --quick] [-- --profile]`: Tether's cost of idempotency against the database's own limit,
// measured in one run. See docs/BENCHMARKS.md for how to read the output.
import { createHash } from 'node:crypto';
import { Agent, get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/server/config';
import { migrate } from '../src/server/db/schema/migrate';
import { createServices } from '../src/server/create-services';
import type { Services } from '../src/server/services';
import { startPgBouncer, type PgBouncer } from '../tests/support/postgres-cluster';
import { createDatabase, startPostgres } from '../tests/support/postgres-server';
import { createAnchorTables, findPgbench, pgAnchor, runPgbench, sqliteAnchor, type Anchor } from './lib/anchors';
import { pgBaseline, sqliteBaseline, type Baseline } from './lib/baseline';
import { httpLoad, type HttpTarget } from './lib/http-load';
import { closedLoop, randomInt, sequentialLatency, type LoadResult } from './lib/measure';
import { parseOptions } from './lib/options';
import { race } from './lib/race';
import { browseTasks } from '../src/server/domain/console/browse';
import {
  ANCHOR_INSERT,
  ANCHOR_LOOKUP,
  HAND_CREATED,
  HAND_FOUND,
  toMarkdown,
  VIA_PGBOUNCER,
  writeReport,
  type Report,
  type ScaleSide,
  type Series,
} from './lib/report';
import { bulkLoad, loadTail, seed, type Seeded } from './lib/seed';
import { ensureBuilt, ROOT, startApp, startHandWritten, type AppProcess } from './lib/server';
import { handBulkLoad } from './lib/hand-written';
import { countStatements, inProcess } from './lib/tether';
import { cpuProbe, type CpuProbe } from './lib/cpu';

const opts = parseOptions(process.argv.slice(2));
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);
const RESULTS = resolve(ROOT, 'bench/results');
const report: Report = {
  startedAt: new Date().toISOString(),
  options: opts,
  node: process.versions.node,
  series: [],
  counts: {},
  notes: [],
};

// Ctrl-C (or a timeout's SIGTERM) must not leave a PostgreSQL or a server process behind.
const cleanups = new Set<() => unknown>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    for (const c of cleanups) {
      try {
        c();
      } catch {
        /* best effort */
      }
    }
    process.exit(130);
  });
}

interface Plan {
  name: string;
  /** The server process an HTTP series talks to: its CPU alone is the series' server CPU (else every server's). */
  server?: AppProcess;
  /** The series goes through PgBouncer: its CPU is counted too. */
  pooled?: boolean;
  baseline?: string;
  /** The physical anchor (anchors.ts) this series is also read against. */
  anchor?: string;
  /** The hand-written endpoint's series (hand-written.ts) an HTTP series is read against. */
  handWritten?: string;
  run(seconds: number): Promise<LoadResult>;
}

/** Rounds interleave the series (round 1 of every series, then round 2, …) so drift hits all of them alike. */
/** `beforeRun` runs before each measured run, outside its CPU count. */
async function matrix(
  dialect: 'postgres' | 'sqlite',
  plans: Plan[],
  cpu: CpuProbe,
  beforeRun?: () => Promise<void>,
): Promise<void> {
  const series: Series[] = plans.map((p) => ({
    dialect,
    name: p.name,
    baseline: p.baseline,
    anchor: p.anchor,
    handWritten: p.handWritten,
    runs: [],
  }));
  report.series.push(...series);
  // Every server process gets the same warm-up time: a series warms its server for `warmupSeconds`, and a server that
  // serves fewer series (the hand-written endpoint, the one behind PgBouncer) warms up for proportionally longer, so
  // none is measured colder than Tether's first server, which six HTTP series warm.
  const perServer = new Map<AppProcess | undefined, number>();
  for (const p of plans) if (p.server) perServer.set(p.server, (perServer.get(p.server) ?? 0) + 1);
  const most = Math.max(1, ...perServer.values());
  for (const p of plans) await p.run(opts.warmupSeconds * (p.server ? most / perServer.get(p.server)! : 1));
  for (let round = 0; round < opts.runs; round++) {
    for (const [i, p] of plans.entries()) {
      await beforeRun?.();
      const stop = await cpu.start(p.server ? [p.server.pid] : undefined, p.pooled);
      const r = await p.run(opts.seconds);
      r.cpu = await stop(r.ops);
      series[i]!.runs.push(r);
      log(
        `${dialect} ${p.name} round ${round + 1}: ${r.opsPerSec.toFixed(0)} ops/s, p50 ${r.p50Ms.toFixed(2)} ms${r.errors ? `, ${r.errors} errors: ${r.firstError}` : ''}`,
      );
    }
  }
}

function plansFor(
  services: Services,
  seeded: Seeded,
  raw: Baseline,
  anchor: Anchor,
  app: AppProcess,
  hand: AppProcess,
  surfaces: Array<'rest' | 'trpc'>,
  more: {
    /** A server on `?pgbouncer=true`: REST Found and Created through PgBouncer, against the same series direct. */
    pooled?: AppProcess;
    pgbench?: (kind: 'lookup' | 'insert', seconds: number) => Promise<LoadResult>;
  } = {},
): Plan[] {
  const held = opts.smallTasks;
  const c = opts.concurrency;
  const tether = inProcess(services, seeded.actor, seeded.main.id, held);
  const loop = (op: () => Promise<unknown>) => (seconds: number) => closedLoop(c, seconds * 1000, op);
  const target: HttpTarget = { url: app.url, token: seeded.token, workspaceId: seeded.main.id, held };
  const reads = { baseline: 'raw lookup', anchor: ANCHOR_LOOKUP };
  const writes = { baseline: 'raw insert', anchor: ANCHOR_INSERT };
  // What each HTTP series is read against: the hand-written endpoint's Found (a lookup is the same one read) or Created.
  const handReads = { ...reads, handWritten: HAND_FOUND };
  const handWrites = { ...writes, handWritten: HAND_CREATED };
  const handTarget: HttpTarget = { ...target, url: hand.url };
  const plans: Plan[] = [
    { name: ANCHOR_LOOKUP, run: loop(anchor.lookup) },
    { name: ANCHOR_INSERT, run: loop(anchor.insert) },
  ];
  const { pgbench } = more;
  if (pgbench) {
    plans.push(
      { name: 'pgbench lookup', anchor: ANCHOR_LOOKUP, run: (s) => pgbench('lookup', s) },
      { name: 'pgbench insert', anchor: ANCHOR_INSERT, run: (s) => pgbench('insert', s) },
    );
  }
  plans.push(
    { name: 'raw lookup', anchor: ANCHOR_LOOKUP, run: loop(() => raw.lookup(seeded.main.id, held)) },
    { name: 'raw insert', anchor: ANCHOR_INSERT, run: loop(() => raw.insert(seeded.baseline)) },
    {
      name: HAND_FOUND,
      ...reads,
      server: hand,
      run: (s) => httpLoad(handTarget, 'rest', 'found', { connections: c, seconds: s }),
    },
    {
      name: HAND_CREATED,
      ...writes,
      server: hand,
      run: (s) => httpLoad(handTarget, 'rest', 'created', { connections: c, seconds: s }),
    },
    { name: 'in-process Found', ...reads, run: loop(tether.found) },
    { name: 'in-process Created', ...writes, run: loop(tether.created) },
  );
  for (const surface of surfaces) {
    const label = surface === 'rest' ? 'REST' : 'tRPC';
    // Through PgBouncer, each right after its direct series, so both meet PostgreSQL in the same state.
    const pooled = surface === 'rest' ? more.pooled : undefined;
    const viaPooler = (op: 'found' | 'created'): Plan[] => {
      if (!pooled) return [];
      const name = op === 'found' ? 'Found' : 'Created';
      const other: HttpTarget = { ...target, url: pooled.url };
      return [
        {
          name: `${label} ${name} ${VIA_PGBOUNCER}`,
          baseline: `${label} ${name}`,
          anchor: op === 'found' ? ANCHOR_LOOKUP : ANCHOR_INSERT,
          handWritten: op === 'found' ? HAND_FOUND : HAND_CREATED,
          server: pooled,
          pooled: true,
          run: (s) => httpLoad(other, surface, op, { connections: c, seconds: s }),
        },
      ];
    };
    plans.push(
      {
        name: `${label} Found`,
        ...handReads,
        server: app,
        run: (s) => httpLoad(target, surface, 'found', { connections: c, seconds: s }),
      },
      ...viaPooler('found'),
      {
        name: `${label} Created`,
        ...handWrites,
        server: app,
        run: (s) => httpLoad(target, surface, 'created', { connections: c, seconds: s }),
      },
      ...viaPooler('created'),
      {
        name: `${label} lookup`,
        ...handReads,
        server: app,
        run: (s) => httpLoad(target, surface, 'lookup', { connections: c, seconds: s }),
      },
    );
  }
  const measuredAgainst = (name: string) => /^(raw|anchor|pgbench|hand-written) /.test(name);
  return plans.filter((p) => measuredAgainst(p.name) || !opts.series || opts.series.some((x) => p.name.includes(x)));
}

function httpGet(agent: Agent, url: string, token: string): Promise<void> {
  return new Promise((ok, fail) => {
    get(url, { agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? ok() : fail(new Error(`GET ${url}: ${res.statusCode}`))));
    }).on('error', fail);
  });
}

/** Lookup latency one request at a time (no queueing), in a workspace holding `tasks` identities. */
async function scaleSide(
  services: Services,
  seeded: Seeded,
  raw: Baseline,
  app: AppProcess,
  ws: { id: string },
  tasks: number,
): Promise<ScaleSide> {
  const n = opts.scaleSamples;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const key = () => `ext-${1 + randomInt(tasks)}`;
  const lookupUrl = () => `${app.url}/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${key()}`;
  // Touch each path once so the first sample does not pay for statement preparation.
  await sequentialLatency(50, () => httpGet(agent, lookupUrl(), seeded.token));
  const rawR = await sequentialLatency(n, () => raw.lookup(ws.id, tasks));
  const inR = await sequentialLatency(n, async () => {
    if (!(await services.store.tasks.findByExternalId(ws.id, key()))) throw new Error('scale lookup missed');
  });
  const httpR = await sequentialLatency(n, () => httpGet(agent, lookupUrl(), seeded.token));
  agent.destroy();
  const pages = await prefixPages(services, seeded, ws, n);
  return { tasks, rawP50Ms: rawR.p50Ms, inProcessP50Ms: inR.p50Ms, httpP50Ms: httpR.p50Ms, ...pages };
}

/**
 * The console's browser, in process — a page of 25 ids starting with a two-digit prefix (`ext-37`: 11,111
 * of a million ids, so the page's capped count reads its 10,001 index entries), sorted by external id, and a later
 * page of the same (keyset, after a cursor).
 */
async function prefixPages(
  services: Services,
  seeded: Seeded,
  ws: { id: string },
  n: number,
): Promise<Pick<ScaleSide, 'prefixPageP50Ms' | 'prefixNextPageP50Ms'>> {
  const prefix = () => `ext-${1 + randomInt(9)}${randomInt(10)}`;
  const browse = (p: string, cursor: string | null) =>
    browseTasks(services.store, seeded.actor, {
      workspaceId: ws.id,
      prefix: p,
      settlement: 'any',
      archived: 'include',
      stepId: null,
      createdFrom: null,
      createdTo: null,
      sort: 'external_id',
      dir: 'asc',
      cursor,
      direction: 'after',
      limit: 25,
    });
  // Fifty first pages (also warming the statements), whose cursors the later-page samples continue from.
  const firsts: Array<{ p: string; next: string | null }> = [];
  for (let i = 0; i < 50; i++) {
    const p = prefix();
    firsts.push({ p, next: (await browse(p, null)).next_cursor });
  }
  const samples = Math.max(50, Math.floor(n / 5));
  const firstR = await sequentialLatency(samples, async () => {
    if ((await browse(prefix(), null)).rows.length !== 25) throw new Error('prefix page came back short');
  });
  const nextR = await sequentialLatency(samples, async (i) => {
    const f = firsts[i % firsts.length]!;
    if ((await browse(f.p, f.next)).rows.length !== 25) throw new Error('later prefix page came back short');
  });
  return { prefixPageP50Ms: firstR.p50Ms, prefixNextPageP50Ms: nextR.p50Ms };
}

/** The hand-written endpoint over the same database, accepting the bench token for the main workspace. */
function startHand(databaseUrl: string, seeded: Seeded, profileDir: string | undefined): Promise<AppProcess> {
  const tokenSha256 = createHash('sha256').update(seeded.token).digest('hex');
  const serves = { tokenSha256, workspace: seeded.main, poolSize: loadConfig().postgres.poolSize };
  return startHandWritten(databaseUrl, serves, { profileDir });
}

async function prepare(databaseUrl: string): Promise<{ services: Services; seeded: Seeded }> {
  const services = createServices({ config: { ...loadConfig(), databaseUrl, failpointsEnabled: false } });
  await migrate(services.store.driver);
  await services.readiness.refresh(services.store.driver);
  const seeded = await seed(services.store.driver);
  await bulkLoad(services.store.driver, seeded.main, opts.smallTasks);
  await bulkLoad(services.store.driver, seeded.small, opts.smallTasks);
  await loadTail(services.store.driver, seeded.tail);
  await createAnchorTables(services.store.driver);
  await handBulkLoad(services.store.driver, seeded.main, opts.smallTasks);
  return { services, seeded };
}

async function postgresPhase(): Promise<void> {
  log('starting PostgreSQL');
  const server = await startPostgres({ onDisk: true });
  const stopServer = () => server.stop();
  cleanups.add(stopServer);
  const apps: AppProcess[] = [];
  /** Two more server processes, through PgBouncer. */
  const pooledApps: AppProcess[] = [];
  let bouncer: PgBouncer | undefined;
  let services: Services | undefined;
  let raw: Baseline | undefined;
  let anchor: Anchor | undefined;
  let hand: AppProcess | undefined;
  try {
    const name = `tether_bench_${Date.now()}`;
    const url = await createDatabase(server.url, name);
    const prepared = await prepare(url);
    services = prepared.services;
    const { seeded } = prepared;
    log('starting two server processes (production build)');
    const profileDir = opts.profile ? resolve(RESULTS, 'profiles') : undefined;
    apps.push(...(await Promise.all([startApp(url, { profileDir }), startApp(url)])));
    for (const a of apps) cleanups.add(a.kill);
    const app = apps[0]!;
    log('starting the hand-written endpoint');
    hand = await startHand(url, seeded, profileDir);
    cleanups.add(hand.kill);
    // PgBouncer in transaction pooling mode in front of the same server, with as many server connections as one
    // server process has pool connections, and two server processes through it (SPEC §12 "Production PostgreSQL"):
    // the race runs through it too, and REST Found and Created through it are set against the direct ones.
    log('starting PgBouncer (transaction pooling) and two server processes through it');
    bouncer = await startPgBouncer(Number(new URL(server.url).port), { poolSize: loadConfig().postgres.poolSize });
    const stopBouncer = bouncer.stop;
    cleanups.add(stopBouncer);
    const viaPooler = { env: { DIRECT_DATABASE_URL: url } };
    pooledApps.push(
      ...(await Promise.all([startApp(bouncer.url(name), viaPooler), startApp(bouncer.url(name), viaPooler)])),
    );
    for (const a of pooledApps) cleanups.add(a.kill);
    raw = pgBaseline(url);
    anchor = pgAnchor(url);

    report.counts.postgres = await countStatements(
      services,
      seeded.token,
      inProcess(services, seeded.actor, seeded.main.id, opts.smallTasks),
      opts.countSamples,
    );
    if (opts.phases.has('matrix')) {
      const driver = services.store.driver;
      const walLsn = async () =>
        Number((await driver.one<{ b: unknown }>("SELECT pg_current_wal_lsn() - '0/0' AS b"))?.b ?? 0);
      const pooler = bouncer;
      const probe = (more: AppProcess[]) =>
        cpuProbe(
          () => [...apps, ...pooledApps, ...more].map((a) => a.pid),
          Number(new URL(url).port),
          walLsn,
          pooler && (() => pooler.pid()),
        );
      const bin = findPgbench();
      if (!bin) report.notes.push('pgbench is not installed next to the PostgreSQL server: its series were skipped.');
      const pgbench = bin
        ? (kind: 'lookup' | 'insert', s: number) => runPgbench(bin, url, kind, opts.concurrency, opts.cores, s)
        : undefined;
      const more = { pooled: pooledApps[0], pgbench };
      const plans = plansFor(services, seeded, raw, anchor, app, hand, ['rest', 'trpc'], more);
      await matrix('postgres', plans, probe([]));
      report.peakRssMb = app.peakRssMb();
    }
    if (opts.phases.has('race')) await racePhase(services, seeded, apps, pooledApps);
    if (opts.phases.has('scale')) await scalePhase(services, seeded, raw, app);
  } finally {
    // PostgreSQL is stopped even when closing a client fails (a timed-out query can make pool.end() reject).
    try {
      await raw?.close();
      await anchor?.close();
      const stopped = [...apps, ...pooledApps, ...(hand ? [hand] : [])];
      await Promise.all(stopped.map((a) => a.stop()));
      for (const a of stopped) cleanups.delete(a.kill);
      await services?.store.close();
    } finally {
      if (bouncer) {
        bouncer.stop();
        cleanups.delete(bouncer.stop);
      }
      server.stop();
      cleanups.delete(stopServer);
    }
  }
}

async function racePhase(
  services: Services,
  seeded: Seeded,
  apps: AppProcess[],
  pooledApps: AppProcess[],
): Promise<void> {
  // The same race, through these processes, in a workspace of its own.
  const raceThrough = (processes: AppProcess[], workspaceId: string) =>
    race(
      services.store.driver,
      processes.map((a) => a.url),
      seeded.token,
      workspaceId,
      opts.raceIdentities,
      opts.raceConcurrency,
    );
  log(`race: ${opts.raceIdentities} identities × ${opts.raceConcurrency} creates across 2 processes`);
  report.race = await raceThrough(apps, seeded.race.id);
  report.peakRssMb = Math.max(report.peakRssMb ?? 0, apps[0]!.peakRssMb());
  if (pooledApps.length === 0) return;
  log(`race through PgBouncer: the same across 2 more processes on ?pgbouncer=true`);
  report.racePooled = await raceThrough(pooledApps, seeded.racePooled.id);
}

async function scalePhase(services: Services, seeded: Seeded, raw: Baseline, app: AppProcess): Promise<void> {
  log('scale: lookups at 10k tasks');
  const small = await scaleSide(services, seeded, raw, app, seeded.small, opts.smallTasks);
  log(`scale: bulk-loading ${opts.largeTasks} tasks`);
  const loadSeconds = await bulkLoad(services.store.driver, seeded.scale, opts.largeTasks);
  const large = await scaleSide(services, seeded, raw, app, seeded.scale, opts.largeTasks);
  report.scale = { small, large, loadSeconds };
}

async function sqlitePhase(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-bench-sqlite-'));
  const file = join(dir, 'bench.db');
  let services: Services | undefined;
  let raw: Baseline | undefined;
  let anchor: Anchor | undefined;
  let app: AppProcess | undefined;
  let hand: AppProcess | undefined;
  try {
    const prepared = await prepare(`file:${file}`);
    services = prepared.services;
    const { seeded } = prepared;
    const profileDir = opts.profile ? resolve(RESULTS, 'profiles') : undefined;
    app = await startApp(`file:${file}`, { profileDir });
    cleanups.add(app.kill);
    hand = await startHand(`file:${file}`, seeded, profileDir);
    cleanups.add(hand.kill);
    raw = sqliteBaseline(file);
    anchor = sqliteAnchor(file);
    report.counts.sqlite = await countStatements(
      services,
      seeded.token,
      inProcess(services, seeded.actor, seeded.main.id, opts.smallTasks),
      opts.countSamples,
    );
    const live = app;
    const driver = services.store.driver;
    await matrix(
      'sqlite',
      plansFor(services, seeded, raw, anchor, app, hand, ['rest', 'trpc']),
      cpuProbe(() => [live.pid], undefined),
      // Every process on the file checkpoints at its own threshold (Tether's server at WAL_AUTOCHECKPOINT_PAGES, the
      // hand-written endpoint and the raw statements at SQLite's 1,000): each run starts with an empty WAL, so the
      // first commit of a series never checkpoints what the series before it wrote.
      () => driver.exec('PRAGMA wal_checkpoint(TRUNCATE)'),
    );
  } finally {
    await raw?.close();
    await anchor?.close();
    for (const a of [app, hand]) {
      await a?.stop();
      if (a) cleanups.delete(a.kill);
    }
    await services?.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const started = Date.now();
ensureBuilt(log);
await postgresPhase();
if (opts.phases.has('sqlite')) await sqlitePhase();
if (opts.mode === 'quick')
  report.notes.push(
    'quick mode: fewer and shorter runs and a smaller scale comparison; use the full mode for reference figures.',
  );
if (opts.profile)
  report.notes.push(
    'the first PostgreSQL server and the SQLite server ran under --cpu-prof (slower); profiles are in bench/results/profiles — summarize with `tsx bench/profile-summary.ts <file>`.',
  );
report.notes.push(`wall time ${((Date.now() - started) / 1000).toFixed(0)} s.`);
const files = writeReport(report, RESULTS);
process.stdout.write(toMarkdown(report));
log(`wrote ${files.json} and ${files.md}`);
process.exit(0);
