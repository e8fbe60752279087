// Closed-loop load at a fixed concurrency: `concurrency` workers each await one operation after another for
// `durationMs`. Throughput is completed operations per second; latencies are per operation, in milliseconds.
import { performance } from 'node:perf_hooks';

export interface LoadResult {
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  ops: number;
  errors: number;
  /** The first error seen, so a broken series says why instead of just being slow. */
  firstError?: string;
  /** CPU microseconds per operation by process (bench/lib/cpu.ts). */
  cpu?: import('./cpu').CpuSplit;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return 0;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function closedLoop(
  concurrency: number,
  durationMs: number,
  op: () => Promise<unknown>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const end = start + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await op();
        latencies.push(performance.now() - t);
      } catch (err) {
        errors++;
        firstError ??= err instanceof Error ? err.message : String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    opsPerSec: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    ops: latencies.length,
    errors,
    firstError,
  };
}

/** Sequential calls (concurrency 1) with microsecond timing: the scale comparison needs sub-millisecond p50s. */
export async function sequentialLatency(
  count: number,
  op: (i: number) => Promise<unknown>,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await op(i);
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  return { p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}

export function randomInt(max: number): number {
  return Math.floor(Math.random() * max);
}
