// The background loops (relay, webhooks, recovery) poll several times a second. While the database is unavailable
// every pass fails the same way: the log says so once when the outage begins and once when it ends, not on every pass.
// Any other failure is logged each time.
import { isDatabaseUnavailable } from '../db/errors';
import type { Services } from '../services';

export interface PassLog {
  succeeded(): void;
  failed(err: unknown): void;
}

export function passLog(services: Services, loop: string, message: string): PassLog {
  let outage = false;
  return {
    succeeded() {
      if (!outage) return;
      outage = false;
      services.log.info({ loop }, 'database reachable again');
    },
    failed(err) {
      const unavailable = isDatabaseUnavailable(err);
      if (unavailable && outage) return;
      outage = unavailable;
      services.log.warn(
        { loop, err: (err as Error).message },
        unavailable ? `${message}: database unavailable (logged once until it answers)` : message,
      );
    },
  };
}
