// Bench modes. --quick must finish in under 2 minutes on a 2-core machine, so it runs fewer, shorter
// rounds and a smaller scale comparison (10k vs 200k); the full mode runs the 10k vs 1M.
import { availableParallelism } from 'node:os';

export interface BenchOptions {
  mode: 'quick' | 'full';
  /** Rounds per series; every figure is the median over them. */
  runs: number;
  /** Seconds per round of each throughput series. */
  seconds: number;
  warmupSeconds: number;
  /** In-flight operations for every throughput series (raw, in-process and HTTP alike). */
  concurrency: number;
  /** Tasks bulk-loaded in the main workspace (the "small" side of the scale comparison). */
  smallTasks: number;
  /** Tasks bulk-loaded in the scale workspace. */
  largeTasks: number;
  raceIdentities: number;
  raceConcurrency: number;
  /** Sequential lookups per scale measurement. */
  scaleSamples: number;
  /** Calls per statement-count sample. */
  countSamples: number;
  /** Which parts run (`--only=matrix,race,scale,sqlite`); default all. */
  phases: Set<'matrix' | 'race' | 'scale' | 'sqlite'>;
  /** `--series=tRPC,REST Found`: only series whose name contains one of these (the raw baselines always run). */
  series?: string[];
  /** Start the server with `node --cpu-prof` and summarize the profile (bench/profile-summary.ts). */
  profile: boolean;
  cores: number;
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const quick = argv.includes('--quick');
  const value = (name: string): number | undefined => {
    const arg = argv.find((a) => a.startsWith(`--${name}=`));
    const n = arg ? Number(arg.slice(name.length + 3)) : NaN;
    return Number.isFinite(n) && n > 0 ? n : undefined;
  };
  return {
    mode: quick ? 'quick' : 'full',
    runs: value('runs') ?? (quick ? 2 : 3),
    seconds: value('seconds') ?? (quick ? 1.5 : 6),
    warmupSeconds: quick ? 0.5 : 2,
    concurrency: value('concurrency') ?? 16,
    smallTasks: 10_000,
    largeTasks: value('large') ?? (quick ? 200_000 : 1_000_000),
    raceIdentities: value('identities') ?? (quick ? 50 : 200),
    raceConcurrency: 64,
    scaleSamples: quick ? 1_000 : 5_000,
    countSamples: quick ? 50 : 200,
    phases: phasesFrom(argv.find((a) => a.startsWith('--only='))?.slice(7)),
    profile: argv.includes('--profile'),
    series: argv
      .find((a) => a.startsWith('--series='))
      ?.slice(9)
      .split(','),
    cores: availableParallelism(),
  };
}

const PHASES = ['matrix', 'race', 'scale', 'sqlite'] as const;

function phasesFrom(list: string | undefined): BenchOptions['phases'] {
  if (!list) return new Set(PHASES);
  const wanted = list.split(',').map((p) => p.trim());
  const unknown = wanted.filter((p) => !PHASES.includes(p as (typeof PHASES)[number]));
  if (unknown.length) throw new Error(`--only: unknown phase ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  return new Set(wanted as Array<(typeof PHASES)[number]>);
}
