// SPEC §6: the background worker every server process runs (and `tether worker` runs alone). Each poll claims
// expired creation operations and drives them to `completed` or `aborted`, then runs a dispatch pass and retries
// compensations handed to cleanup (runtime/cleanup.ts).
// Settings (config.ts): TETHER_LEASE_MS (services.leaseMs: how long a dead creator holds its operation) and
// TETHER_RECOVERY_POLL_MS (default 1000) — together, a crashed create is recovered within a few seconds.
import type { Services } from '../services';
import { cleanupOnce } from './cleanup';
import { passLog } from './outage-log';
import { dispatchLaunches } from './dispatcher';
import { recoverOnce } from './recovery';

export { cleanupOnce } from './cleanup';
export { dispatchLaunches, launchDispatcher, promoteDeferred } from './dispatcher';
export { claimExpired, driveRecovered, recoverOnce } from './recovery';
export { AgentRunners, type AgentRunner, type LaunchRequest } from './agent-runners';

export interface RecoveryRuntimeOptions {
  pollMs?: number;
  /** Operations claimed per pass. */
  batch?: number;
}

export type StopRuntime = () => Promise<void>;

/** Starts the loop; the returned function stops it and waits for the pass in progress. */
export function startRecoveryRuntime(services: Services, options: RecoveryRuntimeOptions = {}): StopRuntime {
  const pollMs = options.pollMs ?? services.config.recovery.pollMs;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const log = passLog(services, 'recovery', 'recovery runtime pass failed');
  const pass = async () => {
    try {
      // Drain: a pass that claimed a full batch is followed at once by another.
      while (!stopped && (await recoverOnce(services, options.batch ?? 10)) >= (options.batch ?? 10));
      if (!stopped) await dispatchLaunches(services);
      // SPEC §4.4: compensations handed to cleanup, retried with backoff until they succeed.
      if (!stopped) await cleanupOnce(services);
      log.succeeded();
    } catch (err) {
      // The database may be away for a while: keep polling, never crash the server.
      log.failed(err);
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = pass().finally(schedule);
    }, pollMs);
    timer.unref?.();
  };
  current = pass().finally(schedule);

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await current;
  };
}
