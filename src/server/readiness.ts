// SPEC §12 readiness: the one gate every external-identity read and write calls (until attestation passes they answer
// 503 with the reason; creates without an identity keep working), and the one mechanism that keeps it true without a
// restart. Attestation runs at start, every `TETHER_ATTEST_INTERVAL_MS`, at once when the database says a database or
// table is gone (the driver's `onSchemaMissing`, db/drivers/schema-alarm.ts), and on demand: `tether attest`, the console's
// button and a legacy resolution record a request (db/repositories/attestation-requests.ts) that every process's
// `watch` sees within about a second, and the process that took the request refreshes at once. Without re-checking,
// health would say ready for a database that had been dropped and re-created empty.
//
// The server does not re-run migrations when the schema disappears: a database re-created by an operator may be
// about to receive a restore, and tables created underneath it would break that. Migrating stays a deliberate
// step (`tether migrate`, or a restart); the next attestation then reports ready again.
import { attest, type AttestationResult } from './db/schema/attest';
import { schemaVersion } from './db/schema/migrate';
import type { Db } from './db/types';
import { DomainError } from './domain/errors/domain-error';

/** A burst of failing requests asks for one attestation, not one each. */
const ALARM_MIN_GAP_MS = 1_000;
/** How often `watch` looks for a newer on-demand request (`tether attest`, the console, a legacy resolution). */
const REQUEST_POLL_MS = 1_000;

export interface WatchOptions {
  intervalMs: number;
  log?: (line: string) => void;
  /**
   * The newest on-demand attestation request (its id), read from the database so a request made by any process —
   * the CLI included — reaches this one within about a second. Errors are ignored (the database may be away).
   */
  latestRequest?: () => Promise<string | undefined>;
  requestPollMs?: number;
}

export class Readiness {
  private result: AttestationResult = {
    ready: false,
    reasons: ['attestation has not run yet'],
    legacy: [],
    legacyTotal: 0,
    checkedAt: new Date(0).toISOString(),
  };
  version = 0;
  private running?: Promise<AttestationResult>;
  /** The run after the one in flight, shared by every caller that arrives while that one runs. */
  private next?: Promise<AttestationResult>;

  get current(): AttestationResult {
    return this.result;
  }

  /** Not ready for a reason found before attestation could run (the database down at start-up: main.ts). */
  notReady(reason: string): void {
    this.result = { ready: false, reasons: [reason], legacy: [], legacyTotal: 0, checkedAt: new Date().toISOString() };
  }

  /**
   * Attests the catalog with a run that starts after this call: a caller that has just changed what attestation reads
   * (an operator settling a legacy row) must not be handed a run in flight that read it before the change. So while
   * a run is in flight, the callers that arrive share the one queued after it. When the database cannot be reached at
   * all this throws and the last answer stands (the outage is answered 503 per request and by health's ping).
   */
  refresh(db: Db): Promise<AttestationResult> {
    if (!this.running) return this.start(db);
    this.next ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return this.running ?? this.start(db);
      });
    return this.next;
  }

  private start(db: Db): Promise<AttestationResult> {
    const run = this.attestNow(db).finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  private async attestNow(db: Db): Promise<AttestationResult> {
    const result = await attest(db);
    this.version = await schemaVersion(db);
    this.result = result;
    return result;
  }

  /** Re-attests every `intervalMs`, on a schema alarm and on a new on-demand request, until the returned stop is called. */
  watch(db: Db, opts: WatchOptions): () => Promise<void> {
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
      this.refresh(db)
        .then(
          (r) => {
            if (r.ready !== wasReady)
              opts.log?.(
                r.ready ? 'Tether: schema attested, ready again' : `Tether: NOT READY: ${r.reasons.join('; ')}`,
              );
          },
          () => {}, // unreachable: the last answer stands until the database answers again
        )
        .finally(() => {
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
    const stopPolling = opts.latestRequest
      ? this.pollRequests(opts.latestRequest, opts.requestPollMs ?? REQUEST_POLL_MS, onAlarm)
      : () => {};
    return async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(deferred);
      unlisten();
      stopPolling();
      await this.running?.catch(() => {});
    };
  }

  /** Calls `onRequest` whenever the newest request differs from the one seen before (the first read only sets it). */
  private pollRequests(latest: () => Promise<string | undefined>, everyMs: number, onRequest: () => void): () => void {
    let seen: string | undefined | null = null; // null: not read yet
    let busy = false;
    const poll = () => {
      if (busy) return;
      busy = true;
      latest()
        .then((id) => {
          if (seen !== null && id !== seen) onRequest();
          seen = id;
        })
        .catch(() => {}) // the database may be away or its tables missing: the alarm and the interval cover that
        .finally(() => (busy = false));
    };
    poll();
    const timer = setInterval(poll, everyMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Throws the 503 unless the identity schema attested. */
  requireIdentity(): void {
    if (!this.result.ready) throw new DomainError('identity_not_ready', this.result.reasons.join('; '));
  }
}
