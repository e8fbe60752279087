// `npm run soak [-- --minutes 10] [-- --clients 16] [-- --outage-seconds 5]` : a long mixed workload — creates,
// duplicate creates, REST and tRPC lookups, releases followed by re-creates, console-style tRPC reads over a session
// cookie — against the BUILT app (`next build`, NODE_ENV=production) on a dedicated PostgreSQL with TWO server
// processes. It reports requests and errors by class, duplicates, each server's memory (RSS start/end), and that the
// recovery runtime is idle at the end; `--outage-seconds N` also stops PostgreSQL for N seconds half-way and measures
// how long the servers take to serve creates again. Exit code 1 when any promise broke (a 5xx outside the outage, a
// duplicate, an operation left behind). The workload itself (`soakWorkload`) is exported for the short version in
// tests/integration/hostile/soak.test.ts.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createSession, SESSION_COOKIE } from '../src/server/auth/session';
import { openDb } from '../src/server/db/drivers';
import { migrate } from '../src/server/db/schema/migrate';
import { Store } from '../src/server/db/store';
import type { Db } from '../src/server/db/types';
import { createApiToken } from '../src/server/domain/tokens/api-tokens';
import { createUser } from '../src/server/domain/users/create-user';
import { makeWorkspace } from '../tests/support/fixtures';
import { createDatabase, startPostgres, type PgServer } from '../tests/support/postgres-server';

export interface SoakSetup {
  targets: string[];
  db: Db;
  workspaceId: string;
  token: string;
  /** `tether_session=…` for console-style reads. */
  cookie: string;
  /** Server pids, for RSS samples (Linux /proc). */
  pids?: number[];
}

export interface SoakOptions {
  seconds: number;
  clients: number;
  /** Called once, half-way, to take the database away; resolves when it is back. */
  outage?: () => Promise<void>;
  log?: (line: string) => void;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  byOperation: Record<string, number>;
  byStatus: Record<string, number>;
  /** 5xx outside an outage window: every one is a broken promise. */
  serverErrors: Array<{ op: string; status: number; body: string }>;
  /** 503s answered while the database was away (expected, and counted apart). */
  outage503: number;
  outageRecoveryMs?: number;
  transportErrors: number;
  releases: number;
  /** Identities created more often than (1 + their successful releases): duplicates by the client's own count. */
  duplicateCreates: number;
  /** (workspace, external_id) pairs held by more than one task in the database. */
  duplicateRows: number;
  /** Operations still open past their lease once the load stopped (the recovery runtime must be idle). */
  leftoverOperations: number;
  /** RSS per server. V8 grows the heap in a sawtooth, so the trend is read from the troughs (min of first/last third). */
  rssMb: Array<{
    pid: number;
    startMb: number;
    endMb: number;
    maxMb: number;
    troughFirstMb: number;
    troughLastMb: number;
    samples: number[];
  }>;
  latencyMs: { p50: number; p99: number; max: number };
}

const OPS = ['create_new', 'create_dup', 'lookup_rest', 'lookup_trpc', 'release', 'console_read'] as const;
type Op = (typeof OPS)[number];
// Weights of the mix: mostly creates and lookups, some releases, a steady trickle of console reads.
const WEIGHTS: Record<Op, number> = {
  create_new: 30,
  create_dup: 25,
  lookup_rest: 15,
  lookup_trpc: 10,
  release: 5,
  console_read: 15,
};

function pick(): Op {
  let r = Math.random() * 100;
  for (const op of OPS) if ((r -= WEIGHTS[op]) < 0) return op;
  return 'create_new';
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : NaN;
  } catch {
    return NaN;
  }
}

export async function soakWorkload(setup: SoakSetup, opts: SoakOptions): Promise<SoakReport> {
  const log = opts.log ?? (() => {});
  const { targets, workspaceId: ws, token } = setup;
  const known: string[] = [];
  const createdCount = new Map<string, number>();
  const releasedCount = new Map<string, number>();
  const byOperation: Record<string, number> = {};
  const byStatus: Record<string, number> = {};
  const serverErrors: SoakReport['serverErrors'] = [];
  const latencies: number[] = [];
  let outage503 = 0;
  let transportErrors = 0;
  let releases = 0;
  let outageWindow: { from: number; to: number } | undefined;
  let outageRecoveryMs: number | undefined;

  const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const console_ = { cookie: setup.cookie };

  async function request(
    op: Op,
    url: string,
    init: RequestInit,
  ): Promise<{ status: number; json: Record<string, unknown> | undefined }> {
    const t0 = Date.now();
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
      const text = await res.text();
      latencies.push(Date.now() - t0);
      byOperation[op] = (byOperation[op] ?? 0) + 1;
      byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
      if (res.status >= 500) {
        const inOutage = outageWindow && t0 >= outageWindow.from - 1000 && t0 <= outageWindow.to;
        if (inOutage && res.status === 503) outage503++;
        else serverErrors.push({ op, status: res.status, body: text.slice(0, 300) });
      }
      let json: Record<string, unknown> | undefined;
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, json };
    } catch {
      transportErrors++;
      return { status: 0, json: undefined };
    }
  }

  async function create(base: string, ext: string, op: Op): Promise<void> {
    const r = await request(op, `${base}/api/v1/tasks`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ workspace_id: ws, external_id: ext, title: `soak ${ext}` }),
    });
    if (r.status === 200 && r.json?.deduplicated === false) createdCount.set(ext, (createdCount.get(ext) ?? 0) + 1);
    if (r.status === 200 && op === 'create_new') known.push(ext);
  }

  async function step(base: string): Promise<void> {
    const op = pick();
    const some = () => known[Math.floor(Math.random() * known.length)];
    const ext = op === 'create_new' || known.length === 0 ? `soak-${randomUUID()}` : some()!;
    const q = encodeURIComponent(ext);
    switch (op) {
      case 'create_new':
      case 'create_dup':
        return create(base, ext, known.length === 0 ? 'create_new' : op);
      case 'lookup_rest':
        await request(op, `${base}/api/v1/workspaces/${ws}/tasks/by-external-id?external_id=${q}`, { headers: bearer });
        return;
      case 'lookup_trpc': {
        const input = encodeURIComponent(JSON.stringify({ workspace_id: ws, external_id: ext }));
        await request(op, `${base}/api/trpc/task.byExternalId?input=${input}`, { headers: bearer });
        return;
      }
      case 'release': {
        // An operator releases an identity; the integration then sends it again and must get a NEW task.
        const r = await request(op, `${base}/api/v1/workspaces/${ws}/tasks/by-external-id?external_id=${q}`, {
          method: 'DELETE',
          headers: { ...bearer, 'idempotency-key': randomUUID() },
        });
        if (r.status === 204) {
          releases++;
          releasedCount.set(ext, (releasedCount.get(ext) ?? 0) + 1);
          await create(base, ext, 'create_dup');
        }
        return;
      }
      case 'console_read': {
        const proc = ['console.overview', 'console.tasks', 'console.unsettled', 'console.releases'][
          Math.floor(Math.random() * 4)
        ]!;
        const input = encodeURIComponent(JSON.stringify({ workspace_id: ws }));
        await request(op, `${base}/api/trpc/${proc}?input=${input}`, { headers: console_ });
        return;
      }
    }
  }

  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  const pids = setup.pids ?? [];
  const samples = new Map<number, number[]>(pids.map((p) => [p, [rssMb(p)]]));
  const sampler = setInterval(
    () => {
      for (const p of pids) samples.get(p)!.push(rssMb(p));
      const done = Object.values(byOperation).reduce((a, b) => a + b, 0);
      log(
        `${Math.round((Date.now() - started) / 1000)} s: ${done} requests, ${serverErrors.length} 5xx, RSS ${pids.map((p) => `${rssMb(p)} MB`).join(' / ')}`,
      );
    },
    Math.max(1000, Math.min(10_000, (opts.seconds * 1000) / 20)),
  );

  const outageTask = opts.outage
    ? (async () => {
        await new Promise((r) => setTimeout(r, (opts.seconds * 1000) / 2));
        const from = Date.now();
        outageWindow = { from, to: Number.MAX_SAFE_INTEGER };
        log('outage: stopping PostgreSQL');
        await opts.outage!();
        const back = Date.now();
        // Recovery time: from the database being back to the first successful create on EVERY server.
        for (const base of targets) {
          for (;;) {
            const r = await fetch(`${base}/api/v1/tasks`, {
              method: 'POST',
              headers: bearer,
              body: JSON.stringify({ workspace_id: ws, title: 'probe' }),
            }).catch(() => undefined);
            if (r?.status === 200) break;
            await new Promise((res) => setTimeout(res, 50));
          }
        }
        outageRecoveryMs = Date.now() - back;
        outageWindow = { from, to: Date.now() };
        log(`outage: servers recovered ${outageRecoveryMs} ms after the database came back`);
      })()
    : Promise.resolve();

  await Promise.all([
    ...Array.from({ length: opts.clients }, async (_, c) => {
      while (Date.now() < deadline) await step(targets[c % targets.length]!);
    }),
    outageTask,
  ]);
  clearInterval(sampler);
  for (const p of pids) samples.get(p)!.push(rssMb(p));

  // The recovery runtime must be idle: give it one lease (and a poll) to finish what the load left, then count.
  const leftover = async () =>
    Number(
      (
        await setup.db.one<{ n: unknown }>(
          "SELECT COUNT(*) AS n FROM creation_operations WHERE state IN ('preparing', 'completing', 'aborting') AND lease_expires_at < $1",
          [new Date().toISOString()],
        )
      )?.n ?? 0,
    );
  let leftoverOperations = await leftover();
  for (let i = 0; i < 30 && leftoverOperations > 0; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    leftoverOperations = await leftover();
  }
  const dupRow = await setup.db.one<{ n: unknown }>(
    'SELECT COUNT(*) AS n FROM (SELECT workspace_id, external_id FROM tasks WHERE external_id IS NOT NULL GROUP BY workspace_id, external_id HAVING COUNT(*) > 1) d',
  );
  let duplicateCreates = 0;
  for (const [ext, n] of createdCount) if (n > 1 + (releasedCount.get(ext) ?? 0)) duplicateCreates++;

  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    seconds: Math.round((Date.now() - started) / 1000),
    requests: latencies.length,
    byOperation,
    byStatus,
    serverErrors,
    outage503,
    outageRecoveryMs,
    transportErrors,
    releases,
    duplicateCreates,
    duplicateRows: Number(dupRow?.n ?? 0),
    leftoverOperations,
    rssMb: pids.map((pid) => {
      const s = samples.get(pid)!.filter((v) => Number.isFinite(v));
      const third = Math.max(1, Math.floor(s.length / 3));
      return {
        pid,
        startMb: s[0] ?? NaN,
        endMb: s[s.length - 1] ?? NaN,
        maxMb: Math.max(...s),
        troughFirstMb: Math.min(...s.slice(0, third)),
        troughLastMb: Math.min(...s.slice(-third)),
        samples: s,
      };
    }),
    latencyMs: { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] ?? 0 },
  };
}

/** Workspace, API token and a console session (operator) on a migrated database. */
export async function seedSoak(db: Db): Promise<Omit<SoakSetup, 'targets' | 'pids' | 'db'>> {
  const ws = await makeWorkspace(db);
  const store = new Store(db); // over the caller's database, which the caller closes
  const { token } = await createApiToken(store, {
    name: 'soak',
    workspaceIds: [ws.id],
    scopes: ['tasks:read', 'tasks:write', 'identities:release'],
  });
  const user = await createUser(store, {
    email: `soak-${randomUUID().slice(0, 8)}@example.com`,
    password: 'soak password 1234',
    role: 'operator',
    workspaceIds: [ws.id],
  });
  const session = await createSession(store, user.id);
  return { workspaceId: ws.id, token, cookie: `${SESSION_COOKIE}=${session.cookieValue}` };
}

/** Whether a report kept every promise. */
export function soakPassed(r: SoakReport): boolean {
  return (
    r.serverErrors.length === 0 &&
    r.duplicateCreates === 0 &&
    r.duplicateRows === 0 &&
    r.leftoverOperations === 0 &&
    r.transportErrors === 0
  );
}

function arg(argv: string[], name: string, dflt: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i === -1 ? NaN : Number(argv[i + 1]);
  return Number.isFinite(v) && v > 0 ? v : dflt;
}

async function main(argv: string[]): Promise<void> {
  const { ensureBuilt, startApp, ROOT } = await import('./lib/server');
  const log = (line: string) => process.stderr.write(`soak: ${line}\n`);
  const minutes = arg(argv, 'minutes', 10);
  const clients = arg(argv, 'clients', 16);
  const outageSeconds = argv.includes('--outage-seconds') ? arg(argv, 'outage-seconds', 5) : 0;
  ensureBuilt(log);
  let pg: PgServer | undefined;
  const apps: Array<Awaited<ReturnType<typeof startApp>>> = [];
  const cleanup = () => {
    for (const a of apps) a.kill();
    pg?.stop();
  };
  process.once('SIGINT', () => (cleanup(), process.exit(130)));
  try {
    pg = await startPostgres({ durableCommits: true, onDisk: true });
    const url = await createDatabase(pg.url, `soak_${Date.now()}`);
    const db = openDb(url, { max: 2 });
    await migrate(db);
    const seeded = await seedSoak(db);
    // Two server processes share the database (SPEC §12); each runs its own recovery runtime (SPEC §6).
    apps.push(await startApp(url), await startApp(url));
    log(`two servers on PostgreSQL: ${apps.map((a) => a.url).join(', ')}; ${minutes} min, ${clients} clients`);
    const server = pg;
    const report = await soakWorkload(
      { ...seeded, db, targets: apps.map((a) => a.url), pids: apps.map((a) => a.pid) },
      {
        seconds: minutes * 60,
        clients,
        log,
        outage: outageSeconds
          ? async () => {
              server.halt!();
              await new Promise((r) => setTimeout(r, outageSeconds * 1000));
              server.resume!();
            }
          : undefined,
      },
    );
    await db.close();
    const dir = resolve(ROOT, 'bench/results');
    mkdirSync(dir, { recursive: true });
    const file = resolve(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(
      file,
      JSON.stringify({ minutes, clients, outageSeconds, node: process.versions.node, report }, null, 2),
    );
    console.log(JSON.stringify({ ...report, rssMb: report.rssMb.map(({ samples: _samples, ...r }) => r) }, null, 2));
    log(`report written to ${file}`);
    const ok = soakPassed(report);
    log(
      ok
        ? 'PASS: no 5xx, no duplicates, recovery runtime idle'
        : 'FAIL: see serverErrors / duplicates / leftoverOperations',
    );
    process.exitCode = ok ? 0 : 1;
  } finally {
    await Promise.all(apps.map((a) => a.stop()));
    pg?.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error('soak failed:', err);
    process.exit(1);
  });
}
