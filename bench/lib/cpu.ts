// CPU time per operation, split by process: the bench process (the raw driver loop, in-process Tether, or the
// load generator for HTTP series), the Tether server processes, and PostgreSQL (postmaster and every backend).
// Issue 4 asks where a missed target's time goes; on a 2-core machine these three share the cores, so CPU
// microseconds per operation say more than wall time does. Read from /proc (Linux), in clock ticks.
import { readdirSync, readFileSync } from 'node:fs';

const TICK_US = 1_000_000 / 100; // USER_HZ is 100 on Linux

export interface CpuSplit {
  benchUs: number;
  serverUs: number;
  postgresUs: number;
}

function ticks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]); // utime + stime (fields 14, 15)
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
export function postgresPids(port: number): number[] {
  const pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number);
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
  /** Starts a measurement; the returned function ends it and divides by `ops`. */
  start(): (ops: number) => CpuSplit;
}

export function cpuProbe(serverPids: () => number[], postgresPort: number | undefined): CpuProbe {
  return {
    start() {
      const bench0 = process.cpuUsage();
      const servers = serverPids();
      const server0 = servers.reduce((a, p) => a + ticks(p), 0);
      // Backends come and go with pool connections: sum whoever exists at either end.
      const pg0 = new Map((postgresPort ? postgresPids(postgresPort) : []).map((p) => [p, ticks(p)]));
      return (ops) => {
        const bench = process.cpuUsage(bench0);
        const server = servers.reduce((a, p) => a + ticks(p), 0) - server0;
        let pg = 0;
        for (const p of postgresPort ? postgresPids(postgresPort) : []) pg += ticks(p) - (pg0.get(p) ?? 0);
        const per = (us: number) => (ops > 0 ? us / ops : 0);
        return { benchUs: per(bench.user + bench.system), serverUs: per(server * TICK_US), postgresUs: per(pg * TICK_US) };
      };
    },
  };
}
