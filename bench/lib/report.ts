// The bench's output: one JSON document (everything measured) and a Markdown summary (medians, ratios to the
// raw driver, targets). Both go to bench/results/ (git-ignored); the Markdown is also printed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CpuSplit } from './cpu';
import type { LoadResult } from './measure';
import { median } from './measure';
import type { BenchOptions } from './options';
import type { RaceResult } from './race';
import type { Counts } from './tether';

export interface Series {
  dialect: 'postgres' | 'sqlite';
  name: string;
  /** The raw-driver series this one is compared with. */
  baseline?: string;
  /** The physical anchor (bench/lib/anchors.ts) this one is also compared with. */
  anchor?: string;
  /** The hand-written endpoint's series (bench/lib/hand-written.ts) an HTTP series is compared with: the targets. */
  handWritten?: string;
  runs: LoadResult[];
}

export interface ScaleSide {
  tasks: number;
  rawP50Ms: number;
  inProcessP50Ms: number;
  httpP50Ms: number;
  /** The console's task browser, in process — a prefix page of 25 (with its capped count), and a later page. */
  prefixPageP50Ms?: number;
  prefixNextPageP50Ms?: number;
}

export interface Report {
  startedAt: string;
  options: BenchOptions;
  node: string;
  series: Series[];
  counts: Partial<Record<'postgres' | 'sqlite', Counts>>;
  race?: RaceResult;
  /** The same race through PgBouncer in transaction pooling mode (two more server processes, `?pgbouncer=true`). */
  racePooled?: RaceResult;
  scale?: { small: ScaleSide; large: ScaleSide; loadSeconds: number };
  peakRssMb?: number;
  notes: string[];
}

export const medianOf = (s: Series, key: keyof LoadResult) => median(s.runs.map((r) => Number(r[key] ?? 0)));
const cpuOf = (s: Series, k: keyof CpuSplit) => median(s.runs.map((r) => r.cpu?.[k] ?? 0));
const cpuTotal = (s: Series) =>
  cpuOf(s, 'benchUs') + cpuOf(s, 'serverUs') + cpuOf(s, 'postgresUs') + cpuOf(s, 'poolerUs');

/** The physical anchors (anchors.ts): pgbench's statements through the raw driver. */
export const ANCHOR_LOOKUP = 'anchor lookup';
export const ANCHOR_INSERT = 'anchor insert';

/** The hand-written endpoint's series (hand-written.ts): the yardstick of every HTTP series. */
export const HAND_FOUND = 'hand-written Found';
export const HAND_CREATED = 'hand-written Created';

/** The series of a server that reaches PostgreSQL through PgBouncer in transaction pooling mode (run.ts). */
export const VIA_PGBOUNCER = '(PgBouncer)';

function find(report: Report, dialect: string, name: string): Series | undefined {
  return report.series.find((s) => s.dialect === dialect && s.name === name);
}

export function ratio(
  report: Report,
  s: Series,
  to: 'baseline' | 'anchor' | 'handWritten' = 'baseline',
): number | undefined {
  const name = s[to];
  const base = name ? find(report, s.dialect, name) : undefined;
  return base ? medianOf(s, 'opsPerSec') / medianOf(base, 'opsPerSec') : undefined;
}

/** The anchor itself says so; a series whose anchor was not measured gets a dash. */
function anchorCell(report: Report, s: Series): string {
  if (!s.anchor) return s.name.startsWith('anchor ') ? '(anchor)' : '–';
  const v = ratio(report, s, 'anchor');
  return v === undefined ? '–' : `${f(v, 2)} × ${s.anchor}`;
}

const f = (n: number | undefined, digits = 0) => (n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits));
const mark = (ok: boolean) => (ok ? 'met' : '**MISSED**');

const DIALECT_LABEL = { postgres: 'PostgreSQL', sqlite: 'SQLite' } as const;

/** Ratio to the hand-written endpoint's series, wanted at least: [series, PostgreSQL, SQLite] (docs/BENCHMARKS.md). */
const HAND_TARGETS = [
  ['REST Found', 0.9, 0.9],
  ['tRPC Found', 0.8, 0.8],
  ['REST Created', 0.5, 0.4],
  ['tRPC Created', 0.5, 0.4],
] as const;

function targets(report: Report): string[][] {
  const rows: string[][] = [];
  // Every HTTP series against the endpoint a user would write by hand instead (hand-written.ts), same run.
  for (const [series, pg, sqlite] of HAND_TARGETS) {
    for (const [dialect, min] of [
      ['postgres', pg],
      ['sqlite', sqlite],
    ] as const) {
      const s = find(report, dialect, series);
      const v = s ? ratio(report, s, 'handWritten') : undefined;
      if (s && v !== undefined)
        rows.push([
          `${series} / ${s.handWritten}, ${DIALECT_LABEL[dialect]}`,
          `≥ ${min} ×`,
          `${f(v, 2)} ×`,
          mark(v >= min),
        ]);
    }
  }
  // What a create writes against what the raw insert of its task row writes (PostgreSQL's WAL).
  const created = find(report, 'postgres', 'REST Created');
  const rawInsert = find(report, 'postgres', 'raw insert');
  if (created && rawInsert) {
    const v = cpuOf(created, 'walBytes') / cpuOf(rawInsert, 'walBytes');
    rows.push(['WAL bytes per REST Created / raw insert, PostgreSQL', '≤ 2.5 ×', `${f(v, 2)} ×`, mark(v <= 2.5)]);
  }
  for (const [dialect, c] of Object.entries(report.counts)) {
    rows.push([
      `SQL statements per Found after authentication, ${DIALECT_LABEL[dialect as 'postgres']}`,
      '= 1',
      f(c.found.statements, 2),
      mark(c.found.statements === 1),
    ]);
    rows.push([
      `Writes per Found, ${DIALECT_LABEL[dialect as 'postgres']}`,
      '= 0',
      f(c.found.writes, 2),
      mark(c.found.writes === 0),
    ]);
  }
  for (const [label, race] of [
    ['Race', report.race],
    ['Race through PgBouncer', report.racePooled],
  ] as const) {
    if (!race) continue;
    const ok = race.errors === 0 && race.duplicates === 0 && race.tasks === race.identities;
    rows.push([
      `${label}: tasks / identities, duplicates, errors`,
      `${race.identities}, 0, 0`,
      `${race.tasks}, ${race.duplicates}, ${race.errors}`,
      mark(ok),
    ]);
  }
  const scale = report.scale;
  if (scale) {
    const v = scale.large.httpP50Ms / scale.small.httpP50Ms;
    rows.push([
      `Lookup p50 at ${scale.large.tasks.toLocaleString('en')} / at ${scale.small.tasks.toLocaleString('en')} (HTTP)`,
      '≤ 1.5 ×',
      `${f(v, 2)} ×`,
      mark(v <= 1.5),
    ]);
  }
  if (report.peakRssMb !== undefined)
    rows.push(['Server peak RSS under load', '≤ 300 MB', `${f(report.peakRssMb)} MB`, mark(report.peakRssMb <= 300)]);
  return rows;
}

/** Server CPU per request, Tether's surfaces against the hand-written endpoint: where a missed ratio's time goes. */
function handCost(report: Report): string[] {
  const rows: string[][] = [];
  for (const dialect of ['postgres', 'sqlite'] as const) {
    for (const op of ['Found', 'Created']) {
      const hand = find(report, dialect, `hand-written ${op}`);
      if (!hand) continue;
      const handUs = cpuOf(hand, 'serverUs');
      const cells = ['REST', 'tRPC'].map((surface) => {
        const s = find(report, dialect, `${surface} ${op}`);
        return s ? `${f(cpuOf(s, 'serverUs'))} (${f(cpuOf(s, 'serverUs') / handUs, 2)} ×)` : '–';
      });
      rows.push([DIALECT_LABEL[dialect], op, f(handUs), ...cells]);
    }
  }
  if (rows.length === 0) return [];
  return [
    '',
    '## Server CPU per request against the hand-written endpoint (µs, median over rounds)',
    '',
    table(['Dialect', 'Request', 'hand-written', 'REST (× hand-written)', 'tRPC (× hand-written)'], rows),
    '',
    "The server process alone (the one the series talks to); on SQLite it includes the database's own work, which runs inside it.",
  ];
}

/** What PgBouncer costs per Found and per Created: the series through it against the same series direct, same run. */
function poolerCost(report: Report): string[] {
  const rows = ['Found', 'Created'].flatMap((op) => {
    const direct = find(report, 'postgres', `REST ${op}`);
    const pooled = find(report, 'postgres', `REST ${op} ${VIA_PGBOUNCER}`);
    if (!direct || !pooled) return [];
    return [
      [
        `REST ${op}`,
        `${f(medianOf(pooled, 'opsPerSec') / medianOf(direct, 'opsPerSec'), 2)} ×`,
        `${f(medianOf(direct, 'p50Ms'), 2)} → ${f(medianOf(pooled, 'p50Ms'), 2)}`,
        `${f(cpuTotal(direct))} → ${f(cpuTotal(pooled))} (${f(cpuTotal(pooled) / cpuTotal(direct), 2)} ×)`,
        f(cpuOf(pooled, 'poolerUs')),
      ],
    ];
  });
  if (rows.length === 0) return [];
  return [
    '',
    '## What PgBouncer costs (transaction pooling, same run)',
    '',
    table(
      [
        'Series',
        'ops/s through PgBouncer ÷ direct',
        'p50 ms direct → through',
        'CPU µs per op direct → through',
        'of which PgBouncer',
      ],
      rows,
    ),
    '',
    'Direct: the first server process on PostgreSQL itself. Through: a server process on `?pgbouncer=true` (unnamed statements), PgBouncer with as many server connections as a server process has pool connections. CPU: the bench process, that server, PostgreSQL and PgBouncer.',
  ];
}

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function toMarkdown(report: Report): string {
  const o = report.options;
  const out: string[] = [];
  out.push(`# Tether benchmark — ${o.mode} mode, ${report.startedAt}`);
  out.push('');
  out.push(
    `${o.cores} cores, Node ${report.node}, concurrency ${o.concurrency}, median of ${o.runs} runs × ${o.seconds} s per series` +
      (o.mode === 'quick'
        ? ` (QUICK: fewer/shorter runs, ${o.raceIdentities} race identities instead of 200, scale compares ${o.smallTasks.toLocaleString('en')} vs ${o.largeTasks.toLocaleString('en')} tasks instead of 1M)`
        : '') +
      '.',
  );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(table(['Target', 'Wanted', 'Measured', ''], targets(report)));
  out.push('');
  out.push('## Throughput');
  out.push('');
  out.push(
    table(
      [
        'Dialect',
        'Series',
        'ops/s (median)',
        'p50 ms',
        'p99 ms',
        'ratio to hand-written',
        'ratio to raw',
        'ratio to anchor',
        'errors',
      ],
      report.series.map((s) => [
        s.dialect,
        s.name,
        f(medianOf(s, 'opsPerSec')),
        f(medianOf(s, 'p50Ms'), 2),
        f(medianOf(s, 'p99Ms'), 2),
        s.handWritten ? `${f(ratio(report, s, 'handWritten'), 2)} × ${s.handWritten}` : '–',
        s.baseline ? `${f(ratio(report, s), 2)} × ${s.baseline}` : s.name.startsWith('raw ') ? '(baseline)' : '–',
        anchorCell(report, s),
        String(s.runs.reduce((n, r) => n + r.errors, 0)) +
          (s.runs.find((r) => r.firstError)?.firstError ? ` (${s.runs.find((r) => r.firstError)!.firstError})` : ''),
      ]),
    ),
  );
  out.push('');
  out.push(...handCost(report).slice(1), '');
  out.push('## CPU per operation (µs, median over rounds)');
  out.push('');
  const pooler = report.series.some((s) => s.runs.some((r) => r.cpu?.poolerUs !== undefined));
  out.push(
    table(
      [
        'Dialect',
        'Series',
        'bench process',
        'servers',
        'PostgreSQL',
        ...(pooler ? ['PgBouncer'] : []),
        'total',
        'WAL bytes per op',
      ],
      report.series.map((s) => {
        const [b, sv, pg, pb] = [
          cpuOf(s, 'benchUs'),
          cpuOf(s, 'serverUs'),
          cpuOf(s, 'postgresUs'),
          cpuOf(s, 'poolerUs'),
        ];
        const pgsql = s.dialect === 'postgres';
        const via = s.runs.some((r) => r.cpu?.poolerUs !== undefined);
        return [
          s.dialect,
          s.name,
          f(b),
          f(sv),
          pgsql ? f(pg) : '–',
          ...(pooler ? [via ? f(pb) : '–'] : []),
          f(b + sv + pg + pb),
          pgsql ? f(cpuOf(s, 'walBytes')) : '–',
        ];
      }),
    ),
  );
  out.push('');
  out.push(
    'The bench process runs the anchor and raw loops, in-process Tether, and the load generator (autocannon) for the HTTP series, and counts pgbench (its child) in its column; "servers" is the server process an HTTP series talks to (for the in-process series, every Tether server process: the background work their creates cause); SQLite runs inside whichever process calls it. Linux /proc ticks (10 ms), so short quick-mode rounds are coarse. WAL bytes per op: pg_current_wal_lsn() around each round, everything PostgreSQL logged divided by the operations done.',
  );
  out.push('');
  out.push('## SQL per request (in-process, db.stats counters)');
  out.push('');
  const countRows: string[][] = [];
  for (const [dialect, c] of Object.entries(report.counts)) {
    for (const [name, v] of Object.entries(c)) {
      countRows.push([dialect, name, f(v.statements, 2), f(v.writes, 2), f(v.transactions, 2)]);
    }
  }
  out.push(table(['Dialect', 'Call', 'statements', 'writes', 'transactions'], countRows));
  out.push('');
  out.push(
    'authCold/authWarm = bearer-token authentication with an empty / warm token cache; found, created and lookup are the domain calls after authentication.',
  );
  if (report.race) {
    out.push('');
    out.push('## Race (2 server processes)');
    for (const [label, r] of [
      ['', report.race],
      ['Through PgBouncer (2 more server processes): ', report.racePooled],
    ] as const) {
      if (!r) continue;
      out.push('');
      out.push(
        `${label}${r.identities} identities × ${o.raceConcurrency} concurrent creates = ${r.requests} requests in ${f(r.seconds, 1)} s → ${r.tasks} tasks, ${r.duplicates} duplicates, ${r.errors} errors${r.firstError ? ` (first: ${r.firstError})` : ''}.`,
      );
    }
  }
  out.push(...poolerCost(report));
  if (report.scale) {
    const s = report.scale;
    out.push('');
    out.push('## Scale (lookup latency, one request at a time)');
    out.push('');
    out.push(
      table(
        [
          'Tasks in workspace',
          'raw p50 ms',
          'in-process p50 ms',
          'HTTP (REST) p50 ms',
          'prefix page p50 ms',
          'later prefix page p50 ms',
        ],
        [s.small, s.large].map((x) => [
          x.tasks.toLocaleString('en'),
          f(x.rawP50Ms, 3),
          f(x.inProcessP50Ms, 3),
          f(x.httpP50Ms, 3),
          x.prefixPageP50Ms === undefined ? '—' : f(x.prefixPageP50Ms, 3),
          x.prefixNextPageP50Ms === undefined ? '—' : f(x.prefixNextPageP50Ms, 3),
        ]),
      ),
    );
    out.push('');
    out.push(
      "Prefix page: the console's task browser in process — 25 ids starting with a random two-digit prefix (`ext-37`), sorted by external id, with the matching count capped at 10,000; later page: the page after the first one's cursor.",
    );
    out.push('');
    out.push(
      `Bulk load of ${s.large.tasks.toLocaleString('en')} tasks took ${f(s.loadSeconds, 1)} s (INSERT … SELECT generate_series, then VACUUM (ANALYZE), ANALYZE and CHECKPOINT).`,
    );
  }
  if (report.peakRssMb !== undefined) {
    out.push('');
    out.push(`Server peak RSS (VmHWM) after the HTTP series: ${f(report.peakRssMb)} MB.`);
  }
  for (const n of report.notes) out.push('', `Note: ${n}`);
  return out.join('\n') + '\n';
}

export function writeReport(report: Report, dir: string): { json: string; md: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const json = resolve(dir, `${stamp}.json`);
  const md = resolve(dir, 'latest.md');
  writeFileSync(json, JSON.stringify(report, null, 2));
  writeFileSync(md, toMarkdown(report));
  return { json, md };
}
