// Test hooks for the states that need a paused or crashed create (recovery, Abort, unsettled identities in the
// console). Inert unless the server was started with TETHER_FAILPOINTS=1 and `--test-hooks` (never in production:
// config.ts). A failpoint is armed by name, optionally only for one external id, to pause (until released), throw, or
// kill the process on the spot (crash tests).

export type FailpointAction = 'pause' | 'error' | 'crash';

export interface FailpointArm {
  name: string;
  action: FailpointAction;
  /** Only trigger for creates/operations carrying this external id (or title, when no id). */
  match?: string;
  /** Trigger at most this many times (default: unlimited). */
  times?: number;
}

interface Armed extends FailpointArm {
  hits: number;
  waiters: Array<() => void>;
}

export class FailpointError extends Error {
  constructor(name: string) {
    super(`failpoint ${name}`);
    this.name = 'FailpointError';
  }
}

export class Failpoints {
  private readonly armed = new Map<string, Armed>();
  /** How many callers are paused at each failpoint (tests wait on this). */
  readonly paused = new Map<string, number>();

  constructor(readonly enabled: boolean) {}

  arm(arm: FailpointArm): void {
    if (!this.enabled)
      throw new Error('failpoints are disabled (start the server with TETHER_FAILPOINTS=1 and --test-hooks)');
    this.release(arm.name);
    this.armed.set(arm.name, { ...arm, hits: 0, waiters: [] });
  }

  /** Disarms a failpoint and lets every caller paused there continue. */
  release(name: string): void {
    const a = this.armed.get(name);
    if (!a) return;
    this.armed.delete(name);
    for (const w of a.waiters) w();
  }

  releaseAll(): void {
    for (const name of [...this.armed.keys()]) this.release(name);
  }

  list(): Array<FailpointArm & { hits: number; paused: number }> {
    return [...this.armed.values()].map((a) => ({
      name: a.name,
      action: a.action,
      match: a.match,
      times: a.times,
      hits: a.hits,
      paused: this.paused.get(a.name) ?? 0,
    }));
  }

  /** Called at each boundary. Resolves immediately unless armed (and matching). */
  async hit(name: string, key?: string | null): Promise<void> {
    if (!this.enabled) return;
    const a = this.armed.get(name);
    if (!a) return;
    if (a.match !== undefined && a.match !== key) return;
    if (a.times !== undefined && a.hits >= a.times) return;
    a.hits++;
    if (a.action === 'crash') process.kill(process.pid, 'SIGKILL');
    if (a.action === 'error') throw new FailpointError(name);
    this.paused.set(name, (this.paused.get(name) ?? 0) + 1);
    try {
      await new Promise<void>((resolve) => a.waiters.push(resolve));
    } finally {
      this.paused.set(name, (this.paused.get(name) ?? 1) - 1);
    }
  }
}
