// CPU time per operation, split by process: the bench process (the raw driver loop, in-process Tether, or the load
// generator for HTTP series), the Tether server processes, and PostgreSQL (postmaster and every backend). A missed
// target needs to say where its time goes; on a 2-core machine these three share the cores, so CPU microseconds per
// operation say more than wall time does. Read from /proc (Linux), in clock ticks.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1_000_000 / 100; // USER_HZ is 100 on Linux

export interface CpuSplit {
  benchUs: number;
  serverUs: number;
  postgresUs: number;
  /** PgBouncer, when the series goes through it. */
  poolerUs?: number;
  /** PostgreSQL WAL bytes written per operation (every writer of the round, the relay included). */
  walBytes?: number;
}

/** utime + stime of `pid`; with `children`, also the CPU of the children it has waited for (cutime + cstime): a
 *  PostgreSQL backend that exits during a round (pgbench's, a pool's) lands in the postmaster's, pgbench in the
 *  bench process's. */
function ticks(pid: number | 'self', children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime: fields 14–17
    return Number(f[11]) + Number(f[12]) + (children ? Number(f[13]) + Number(f[14]) : 0);
  } catch {
    return 0; // exited
  }
}

function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return -1;
  }
}

/** The postmaster listening on `port` (its command line says `-p <port>`) and all its children. */
/** The postmaster listening on `port` first, then its children. */
export function postgresPids(port: number): number[] {
  const pids = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
  const master = pids.find((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return cmd[0]?.endsWith('postgres') && cmd.includes('-p') && cmd[cmd.indexOf('-p') + 1] === String(port);
    } catch {
      return false;
    }
  });
  if (master === undefined) return [];
  return [master, ...pids.filter((pid) => parentOf(pid) === master)];
}

export interface CpuProbe {
  /**
   * Starts a measurement; the returned function ends it and divides by `ops`. `servers`: the server processes to
   * count (an HTTP series: the one it talks to); by default every server process the probe knows.
   */
  start(servers?: readonly number[], pooled?: boolean): Promise<(ops: number) => Promise<CpuSplit>>;
}

/** `walLsn`: PostgreSQL's current WAL position in bytes (pg_current_wal_lsn), to report WAL written per operation;
 *  `poolerPid`: PgBouncer's process, counted for the series that go through it (`start(servers, true)`). */
export function cpuProbe(
  serverPids: () => number[],
  postgresPort: number | undefined,
  walLsn?: () => Promise<number>,
  poolerPid?: () => number,
): CpuProbe {
  const pgTicks = () => {
    const [master, ...backends] = postgresPort ? postgresPids(postgresPort) : [];
    return new Map<number, number>([
      ...(master ? [[master, ticks(master, true)] as const] : []),
      ...backends.map((p) => [p, ticks(p)] as const),
    ]);
  };
  return {
    async start(only, pooled) {
      const pooler = pooled && poolerPid ? poolerPid() : undefined;
      const pooler0 = pooler === undefined ? 0 : ticks(pooler);
      const wal0 = await walLsn?.();
      const bench0 = process.cpuUsage();
      const children0 = ticks('self', true) - ticks('self');
      const servers = only ?? serverPids();
      const server0 = servers.reduce((a, p) => a + ticks(p), 0);
      // Backends come and go with pool connections: those alive at either end, plus what the postmaster reaped.
      const pg0 = pgTicks();
      return async (ops) => {
        const bench = process.cpuUsage(bench0);
        const children = ticks('self', true) - ticks('self') - children0;
        const server = servers.reduce((a, p) => a + ticks(p), 0) - server0;
        const pg1 = pgTicks();
        let pg = 0;
        for (const [p, t] of pg1) pg += t - (pg0.get(p) ?? 0);
        for (const [p, t] of pg0) if (!pg1.has(p)) pg -= t; // reaped meanwhile: its whole life is in the postmaster's

        const wal = wal0 === undefined ? undefined : (await walLsn!()) - wal0;
        const per = (n: number) => (ops > 0 ? n / ops : 0);
        return {
          benchUs: per(bench.user + bench.system + children * TICK_US),
          serverUs: per(server * TICK_US),
          postgresUs: per(pg * TICK_US),
          ...(pooler === undefined ? {} : { poolerUs: per((ticks(pooler) - pooler0) * TICK_US) }),
          walBytes: wal === undefined ? undefined : per(wal),
        };
      };
    },
  };
}
