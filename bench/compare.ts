// `npm run bench:compare -- <other checkout> [--rounds=8] [--seconds=3] [--instances=2] [--dialect=postgres|sqlite]
//   [--series=found,lookup,trpc-found,trpc-lookup,created,trpc-created]` (default: the four reads): this checkout's
// server against another checkout's (an earlier commit, as a git worktree with its own `npm ci` and `next build`), in
// ONE run: on one PostgreSQL, or each server on a SQLite file of its own. The bench's ratios move with everything that
// shares the machine's two cores; this measures the one thing a change to the server changes — server CPU per request
// — with every server up at once, the series interleaved and the two sides' rounds alternated (A B, B A, …), so drift
// hits both alike. Each checkout seeds its own database through its own code (bench/lib/compare-seed.ts) and starts
// its server the way its own `npm start` does: the bundle when it has scripts/build-server.mjs, else its sources
// through tsx. docs/BENCHMARKS.md, "Comparing two builds".
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { createDatabase, freePort, startPostgres } from '../tests/support/postgres-server';
import { median } from './lib/measure';
import { ROOT } from './lib/server';

const SERIES = ['found', 'lookup', 'trpc-found', 'trpc-lookup', 'created', 'trpc-created'] as const;
/** The default: reads only. Created (`--series=…,created,trpc-created`) writes a task per request, so it grows the table. */
const READS: SeriesName[] = ['found', 'lookup', 'trpc-found', 'trpc-lookup'];
type SeriesName = (typeof SERIES)[number];
const HELD = 10_000;

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const other = argv.find((a) => !a.startsWith('--'));
if (!other || !existsSync(resolve(other, 'package.json'))) {
  console.error(
    'usage: npm run bench:compare -- <path of another checkout, with node_modules and .next> [--rounds=N] [--seconds=N] [--instances=N] [--dialect=postgres|sqlite] [--series=…]',
  );
  process.exit(2);
}
const rounds = Number(option('rounds', '8'));
const instances = Number(option('instances', '2'));
const dialect = option('dialect', 'postgres');
if (dialect !== 'postgres' && dialect !== 'sqlite') throw new Error('--dialect: postgres or sqlite');
const seconds = Number(option('seconds', '3'));
const series = option('series', READS.join(',')).split(',') as SeriesName[];
for (const s of series) if (!SERIES.includes(s)) throw new Error(`--series: unknown ${s} (${SERIES.join(', ')})`);

interface Server {
  label: string;
  url: string;
  pid: number;
  token: string;
  workspaceId: string;
  child: ChildProcess;
}

/** utime + stime of a process, in clock ticks (10 ms). */
function ticks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
}

async function start(label: string, root: string, databaseUrl: string): Promise<Server> {
  const seeded = spawnSync(
    process.execPath,
    ['--import', 'tsx', resolve(ROOT, 'bench/lib/compare-seed.ts'), root, databaseUrl, String(HELD)],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, TETHER_LOG_LEVEL: 'silent' },
    },
  );
  if (seeded.status !== 0) throw new Error(`${label}: seeding failed\n${seeded.stderr}`);
  const { token, workspaceId } = JSON.parse(seeded.stdout.trim().split('\n').pop()!) as {
    token: string;
    workspaceId: string;
  };
  const bundled = existsSync(resolve(root, 'scripts/build-server.mjs'));
  if (
    bundled &&
    spawnSync(process.execPath, ['scripts/build-server.mjs', '--quiet'], { cwd: root, stdio: 'inherit' }).status !== 0
  ) {
    throw new Error(`${label}: the server bundle did not build`);
  }
  const port = await freePort();
  const entry = bundled ? ['dist/server/main.mjs'] : ['--import', 'tsx', 'src/server/main.ts'];
  const child = spawn(process.execPath, ['--max-old-space-size=512', ...entry], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      TETHER_RATE_LIMIT_PER_SEC: '0',
    },
  });
  let output = '';
  await new Promise<void>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`${label}: no start in 90 s\n${output}`)), 90_000);
    // Output is kept (up to 64 KiB) for error messages, but scanned only until the server has started: under load
    // it writes request lines, and scanning them would spend CPU this process shares with the servers.
    const keep = (d: Buffer) => {
      if (output.length < 65_536) output += String(d);
    };
    const started = () => {
      if (!/listening on/.test(output)) return;
      clearTimeout(timer);
      child.stdout!.off('data', started);
      ok();
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.stdout!.on('data', started);
    child.once('exit', (code) => fail(new Error(`${label}: exited (${code})\n${output}`)));
  });
  return { label, url: `http://127.0.0.1:${port}`, pid: child.pid!, token, workspaceId, child };
}

const held = () => `ext-${1 + Math.floor(Math.random() * HELD)}`;
const run = Math.random().toString(36).slice(2, 8);
let created = 0;
const fresh = () => `new-${run}-${++created}`;

function request(s: Server, name: SeriesName) {
  const create = (id: () => string) =>
    JSON.stringify({ workspace_id: s.workspaceId, external_id: id(), title: 'bench task' });
  switch (name) {
    case 'found':
      return { method: 'POST', path: '/api/v1/tasks', setupRequest: (r: object) => ({ ...r, body: create(held) }) };
    case 'trpc-found':
      return {
        method: 'POST',
        path: '/api/trpc/task.create',
        setupRequest: (r: object) => ({ ...r, body: create(held) }),
      };
    case 'created':
      return { method: 'POST', path: '/api/v1/tasks', setupRequest: (r: object) => ({ ...r, body: create(fresh) }) };
    case 'trpc-created':
      return {
        method: 'POST',
        path: '/api/trpc/task.create',
        setupRequest: (r: object) => ({ ...r, body: create(fresh) }),
      };
    case 'lookup':
      return {
        method: 'GET',
        setupRequest: (r: object) => ({
          ...r,
          path: `/api/v1/workspaces/${s.workspaceId}/tasks/by-external-id?external_id=${held()}`,
        }),
      };
    case 'trpc-lookup':
      return {
        method: 'GET',
        setupRequest: (r: object) => ({
          ...r,
          path: `/api/trpc/task.byExternalId?input=${encodeURIComponent(JSON.stringify({ workspace_id: s.workspaceId, external_id: held() }))}`,
        }),
      };
  }
}

/** One round against one server: server CPU µs per successful request, and requests per second. */
async function round(s: Server, name: SeriesName, secs: number): Promise<{ us: number; rps: number }> {
  const before = ticks(s.pid);
  const r = await autocannon({
    url: s.url,
    connections: 16,
    duration: secs,
    headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
    requests: [request(s, name)],
  });
  const ok = r['2xx'];
  if (r.non2xx || r.errors || ok === 0) throw new Error(`${s.label} ${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { us: ((ticks(s.pid) - before) * 10_000) / ok, rps: ok / r.duration };
}

const pg = dialect === 'postgres' ? await startPostgres({ onDisk: true }) : undefined;
const files = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'tether-compare-')) : undefined;
/** A fresh database for one server: a PostgreSQL database, or a SQLite file. */
const database = (name: string) =>
  pg ? createDatabase(pg.url, name) : Promise.resolve(`file:${join(files!, `${name}.db`)}`);
const servers: Server[] = [];
const stopAll = () => {
  for (const s of servers) s.child.kill('SIGKILL');
  pg?.stop();
  if (files) rmSync(files, { recursive: true, force: true });
};
process.once('exit', stopAll);
try {
  // Several processes per checkout, each over its own database: two processes of the same build differ by up to ~10 %
  // on this machine (docs/BENCHMARKS.md), so one process per side would measure which one was luckier.
  const sides = { mine: [] as Server[], theirs: [] as Server[] };
  for (let i = 0; i < instances; i++) {
    sides.mine.push(await start('this checkout', ROOT, await database(`compare_this_${i}`)));
    sides.theirs.push(await start(resolve(other), resolve(other), await database(`compare_other_${i}`)));
  }
  servers.push(...sides.mine, ...sides.theirs);
  for (const name of series) for (const s of servers) await round(s, name, 1); // warm-up: every server, every series
  const results = new Map(series.map((name) => [name, [] as Array<{ mine: number; theirs: number }>]));
  for (let i = 0; i < rounds; i++) {
    // Series interleaved within a round (every server serves every kind of request, as in production and the bench),
    // the two sides alternated: this, other, other, this, …
    for (const name of series) {
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const mine: number[] = [];
      const theirs: number[] = [];
      for (let k = 0; k < instances; k++) {
        const pair = (i + k) % 2 === 0 ? [sides.mine[k]!, sides.theirs[k]!] : [sides.theirs[k]!, sides.mine[k]!];
        for (const s of pair) (sides.mine.includes(s) ? mine : theirs).push((await round(s, name, seconds)).us);
      }
      results.get(name)!.push({ mine: mean(mine), theirs: mean(theirs) });
      process.stderr.write(
        `compare: round ${i + 1} ${name}: other ${mean(theirs).toFixed(0)} µs, this ${mean(mine).toFixed(0)} µs\n`,
      );
    }
  }
  const m = (xs: number[]) => median(xs).toFixed(0);
  const lines = [
    `| Series | other: server µs/request | this checkout | this / other (median of paired rounds) |`,
    '|---|---|---|---|',
  ];
  for (const [name, pairs] of results) {
    const ratio = median(pairs.map((p) => p.mine / p.theirs));
    lines.push(
      `| ${name} | ${m(pairs.map((p) => p.theirs))} | ${m(pairs.map((p) => p.mine))} | ${ratio.toFixed(2)} × |`,
    );
  }
  const rss = (side: Server[]) => side.map((s) => peakRssMb(s.pid).toFixed(0)).join(', ');
  lines.push(
    '',
    `${dialect}; other = ${resolve(other)}. ${instances} server processes per checkout, ${rounds} rounds × ${seconds} s per series and process, 16 connections.`,
    `Peak RSS (MB): other ${rss(sides.theirs)}; this checkout ${rss(sides.mine)}.`,
  );
  console.log(lines.join('\n'));
} finally {
  stopAll();
}
process.exit(0);
