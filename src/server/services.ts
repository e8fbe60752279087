// Everything a request needs, built once per process (brief: "load the domain code once per process"). All process
// state hangs here — the store and its statement batches, the token cache, the rate limiter, the event hub — so
// two Services (two tests, two servers in one process) never share any, and tests build exactly what they need.
// This file only describes them (every module may import the type); create-services.ts builds them.
import type { RateLimiter } from './auth/rate-limit';
import type { Config } from './config';
import type { Store } from './db/store';
import type { Db } from './db/types';
import type { CreationPulse } from './domain/console/pulse';
import type { CreationDispatcher } from './domain/creation/operation';
import type { DestinationPolicy } from './domain/outbound/destinations';
import type { EventHub } from './domain/events/hub';
import type { TokenCache } from './domain/tokens/token-cache';
import type { TokenUsage } from './domain/tokens/token-usage';
import type { Failpoints } from './failpoints';
import type { Logger } from './observability/logger';
import type { Metrics } from './observability/metrics';
import type { RequestScope } from './observability/request-scope';
import type { Readiness } from './readiness';
import type { AgentRunners } from './runtime/agent-runners';

export interface Services {
  config: Config;
  store: Store;
  readiness: Readiness;
  failpoints: Failpoints;
  /** Identifies this process as a lease owner (SPEC §4.2, §6). */
  instanceId: string;
  /** How long a creating request's lease on its operation lasts before recovery may take over. */
  leaseMs: number;
  /** Verified API tokens, briefly (domain/tokens/token-cache.ts). */
  tokenCache: TokenCache;
  /** When each API token was last used, written at most once a minute (domain/tokens/token-usage.ts). */
  tokenUsage: TokenUsage;
  /** Per-actor request rate, per process (auth/rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** The relay's in-process side: live streams wait on it (domain/events/hub.ts). */
  hub: EventHub;
  /** What the console polls to follow creates in flight, one shared read per process (domain/console/pulse.ts). */
  pulse: CreationPulse;
  /** SPEC §9: where outbound calls for a workspace's configuration may go (domain/outbound/destinations.ts). */
  destinations: DestinationPolicy;
  /** The agent runners profiles can name (runtime/agent-runners.ts). */
  agentRunners: AgentRunners;
  /** SPEC §4.1 step 10: what starts after a successful Complete (runtime/dispatcher.ts). */
  dispatcher: CreationDispatcher;
  /** The structured log (observability/logger.ts): one line per request, and what the runtime has to say. */
  log: Logger;
  /** The one line per request: no redaction pass (fixed fields only), JSON lines batched (observability/logger.ts). */
  requestLog: Logger;
  /** Prometheus counters, histograms and scrape-time gauges, in this Services' own registry (observability/metrics.ts). */
  metrics: Metrics;
  /** The request being answered: id, route, actor, error code (observability/request-scope.ts). */
  requests: RequestScope;
}

export interface ServiceOptions extends Partial<Omit<Services, 'store' | 'db'>> {
  /** A store to use; else one over `db`; else one opened from `config.databaseUrl`. */
  store?: Store;
  db?: Db;
}
