// Prometheus metrics (SPEC §13: what an operator watches), with prom-client. One Registry per Services — never
// prom-client's global one — so two Services in one process (tests, the bench) count apart. Counters live in memory:
// counting a Found create writes nothing anywhere (SPEC §4.1). Gauges that describe the database are read when
// Prometheus scrapes. docs/METRICS.md lists every metric; tests/integration/observability/metrics.test.ts holds them to
// it.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PoolStats } from '../db/types';

export type CreateOutcomeKind = 'created' | 'found_settled' | 'found_unsettled' | 'created_identity_lost';

/** SPEC §3's outcome names, as the metric labels them. */
const OUTCOME_LABEL: Record<CreateOutcomeKind, string> = {
  created: 'Created',
  found_settled: 'FoundSettled',
  found_unsettled: 'FoundUnsettled',
  created_identity_lost: 'CreatedIdentityLost',
};

/** What the scrape-time gauges read (create-services.ts wires them to the store, readiness and the relay's hub). */
export interface MetricSources {
  identityReady(): boolean;
  unsettledIdentities(): Promise<{ count: number; oldestCreatedAt: string | null }>;
  /** The seq this process's relay has published up to; undefined when no relay runs here. */
  relaySafe(): number | undefined;
  outboxHead(): Promise<number>;
  firstEventAfter(seq: number): Promise<string | undefined>;
  cleanup(): Promise<{ pending: number; failing: number }>;
  pool(): PoolStats;
}

export class Metrics {
  readonly registry = new Registry();
  readonly creates: Counter<'surface' | 'outcome'>;
  readonly releases: Counter<'result' | 'replayed'>;
  readonly errors: Counter<'code' | 'surface'>;
  readonly requestDuration: Histogram<'route' | 'method' | 'status'>;
  readonly recoveryTakeovers: Counter;
  readonly creationAborts: Counter<'by'>;
  readonly webhookDeliveries: Counter<'result'>;

  /** `sources` are read at scrape time only (the gauges that describe the database and this process). */
  constructor(sources: MetricSources) {
    const registers = [this.registry];
    this.creates = new Counter({
      name: 'tether_creates_total',
      help: 'Creates answered, by surface (rest, trpc, mcp) and SPEC §3 outcome (Created, FoundSettled, FoundUnsettled, CreatedIdentityLost).',
      labelNames: ['surface', 'outcome'],
      registers,
    });
    this.releases = new Counter({
      name: 'tether_releases_total',
      help: 'Releases answered (SPEC §7), by result: released, not_found, or the refusal code (creation_completing, creation_aborting, idempotency_key_conflict, …); replayed=true for a stored result.',
      labelNames: ['result', 'replayed'],
      registers,
    });
    this.errors = new Counter({
      name: 'tether_errors_total',
      help: 'Requests that answered an error, by domain code (the error table) and surface.',
      labelNames: ['code', 'surface'],
      registers,
    });
    this.requestDuration = new Histogram({
      name: 'tether_http_request_duration_seconds',
      help: 'Request latency, by route pattern, method and status class.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.recoveryTakeovers = new Counter({
      name: 'tether_recovery_takeovers_total',
      help: 'Creation operations whose lease expired and that this process took over (SPEC §6).',
      registers,
    });
    this.creationAborts = new Counter({
      name: 'tether_creation_aborts_total',
      help: 'Creation operations this process aborted (SPEC §4.4), by who drove the abort: request or recovery.',
      labelNames: ['by'],
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'tether_webhook_deliveries_total',
      help: 'Webhook delivery attempts this process made (SPEC §9), by result: delivered or failed.',
      labelNames: ['result'],
      registers,
    });
    scrapeGauges(registers, sources);
  }

  recordCreate(surface: string, kind: CreateOutcomeKind): void {
    this.creates.inc({ surface, outcome: OUTCOME_LABEL[kind] });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** A gauge set from `read()` at each scrape; left without a sample when the read fails (the database is away). */
function gaugeFrom<L extends string>(
  registers: Registry[],
  spec: { name: string; help: string; labelNames?: L[] },
  read: (set: (value: number, labels?: Partial<Record<L, string>>) => void) => Promise<void> | void,
): void {
  new Gauge<L>({
    ...spec,
    labelNames: spec.labelNames ?? [],
    registers,
    async collect() {
      this.reset();
      try {
        await read((value, labels) => (labels ? this.set(labels as Record<L, string>, value) : this.set(value)));
      } catch {
        // no sample: an absent series says "unknown", a zero would say "none"
      }
    },
  });
}

function scrapeGauges(registers: Registry[], sources: MetricSources): void {
  gaugeFrom(
    registers,
    {
      name: 'tether_identity_ready',
      help: 'Whether this process serves external identities (SPEC §12 attestation): 1 or 0.',
    },
    (set) => set(sources.identityReady() ? 1 : 0),
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_identities_unsettled',
      help: 'Tasks holding an external_id that is not settled (creates in flight, legacy rows).',
    },
    async (set) => set((await sources.unsettledIdentities()).count),
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_identities_unsettled_oldest_age_seconds',
      help: 'Age of the oldest unsettled identity (0 when there is none).',
    },
    async (set) => {
      const { oldestCreatedAt } = await sources.unsettledIdentities();
      set(oldestCreatedAt ? Math.max(0, (Date.now() - Date.parse(oldestCreatedAt)) / 1000) : 0);
    },
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_relay_lag_events',
      help: "Outbox events written but not yet published by this process's relay (SPEC §9); absent when no relay runs here.",
    },
    async (set) => {
      const safe = sources.relaySafe();
      if (safe !== undefined) set(Math.max(0, (await sources.outboxHead()) - safe));
    },
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_relay_lag_seconds',
      help: "Age of the oldest outbox event this process's relay has not published yet (0 when caught up); absent when no relay runs here.",
    },
    async (set) => {
      const safe = sources.relaySafe();
      if (safe === undefined) return;
      const first = await sources.firstEventAfter(safe);
      set(first ? Math.max(0, (Date.now() - Date.parse(first)) / 1000) : 0);
    },
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_cleanup_pending',
      help: 'Compensations handed to cleanup that have not succeeded yet (SPEC §4.4).',
    },
    async (set) => set((await sources.cleanup()).pending),
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_cleanup_failing',
      help: 'Compensations handed to cleanup that keep failing (tried 3 times or more): an operator should look.',
    },
    async (set) => set((await sources.cleanup()).failing),
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_db_pool_connections',
      help: 'Database connections by state (open, idle) and callers waiting for one; SQLite: its one connection and the queue in front of it.',
      labelNames: ['state'],
    },
    (set) => {
      const p = sources.pool();
      set(p.total, { state: 'open' });
      set(p.idle, { state: 'idle' });
      set(p.waiting, { state: 'waiting' });
    },
  );
  gaugeFrom(
    registers,
    {
      name: 'tether_db_pool_max',
      help: 'The most database connections this process opens (TETHER_PG_POOL_SIZE; 1 on SQLite).',
    },
    (set) => set(sources.pool().max),
  );
}
