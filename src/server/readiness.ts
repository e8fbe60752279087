// SPEC §12 readiness: the one gate every external-identity read and write calls (until attestation passes they
// answer 503 with the reason; creates without an identity keep working), and the one mechanism that keeps it true
// without a restart. Attestation runs at start, every `TETHER_ATTEST_INTERVAL_MS`, at once when the database says
// a database or table is gone (the driver's `onSchemaMissing`, db/schema-alarm.ts), and on demand
// (`refresh`, for the CLI and console). Issue 18: health said ready for a database that had been dropped and
// re-created empty, because the start-up answer was never re-checked.
//
// The server does not re-run migrations when the schema disappears: a database re-created by an operator may be
// about to receive a restore, and tables created underneath it would break that. Migrating stays a deliberate
// step (`tether migrate`, or a restart); the next attestation then reports ready again.
import { attest, type AttestationResult } from './db/attest';
import { schemaVersion } from './db/migrate';
import type { Db } from './db/types';
import { DomainError } from './domain/errors/domain-error';

/** A burst of failing requests asks for one attestation, not one each. */
const ALARM_MIN_GAP_MS = 1_000;

export class Readiness {
  private result: AttestationResult = {
    ready: false,
    reasons: ['attestation has not run yet'],
    legacy: [],
    checkedAt: new Date(0).toISOString(),
  };
  version = 0;
  private running?: Promise<AttestationResult>;

  get current(): AttestationResult {
    return this.result;
  }

  /**
   * Attests the catalog now; callers that arrive meanwhile share the run. When the database cannot be reached at
   * all this throws and the last answer stands (the outage is answered 503 per request and by health's ping).
   */
  refresh(db: Db): Promise<AttestationResult> {
    this.running ??= this.attestNow(db).finally(() => (this.running = undefined));
    return this.running;
  }

  private async attestNow(db: Db): Promise<AttestationResult> {
    const result = await attest(db);
    this.version = await schemaVersion(db);
    this.result = result;
    return result;
  }

  /** Re-attests every `intervalMs` and on a schema alarm until the returned stop is called. */
  watch(db: Db, opts: { intervalMs: number; log?: (line: string) => void }): () => Promise<void> {
    let stopped = false;
    let lastStart = 0;
    let again = false;
    const run = (): void => {
      if (stopped) return;
      if (this.running) {
        again = true; // this run may have started before the failure was seen: check once more after it
        return;
      }
      lastStart = Date.now();
      const wasReady = this.result.ready;
      this.refresh(db).then(
        (r) => {
          if (r.ready !== wasReady) opts.log?.(r.ready ? 'Tether: schema attested, ready again' : `Tether: NOT READY: ${r.reasons.join('; ')}`);
        },
        () => {}, // unreachable: the last answer stands until the database answers again
      ).finally(() => {
        if (again) {
          again = false;
          run();
        }
      });
    };
    const timer = setInterval(run, opts.intervalMs);
    timer.unref();
    let deferred: NodeJS.Timeout | undefined;
    const onAlarm = () => {
      if (this.running) {
        again = true;
        return;
      }
      const wait = lastStart + ALARM_MIN_GAP_MS - Date.now();
      if (wait <= 0) run();
      else
        deferred ??= setTimeout(() => {
          deferred = undefined;
          run();
        }, wait).unref();
    };
    const unlisten = db.onSchemaMissing(onAlarm);
    return async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(deferred);
      unlisten();
      await this.running?.catch(() => {});
    };
  }

  /** Throws the 503 unless the identity schema attested. */
  requireIdentity(): void {
    if (!this.result.ready) throw new DomainError('identity_not_ready', this.result.reasons.join('; '));
  }
}
