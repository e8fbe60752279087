// Everything a request needs, built once per process (brief: "load the domain code once per process"). All process
// state hangs here — the store and its statement batches, the token cache, the rate limiter, the event hub — so
// two Services (two tests, two servers in one process) never share any, and tests build exactly what they need.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { RateLimiter } from './auth/rate-limit';
import { loadConfig, type Config } from './config';
import { openDb } from './db/dialect';
import { Store } from './db/store';
import type { Db } from './db/types';
import type { CreationDispatcher } from './domain/creation/operation';
import { EventHub } from './domain/events/hub';
import { TokenCache } from './domain/tokens/token-cache';
import { Failpoints } from './failpoints';
import { Readiness } from './readiness';
import { AgentRunners } from './runtime/agent-runners';
import { launchDispatcher } from './runtime/dispatcher';

export interface Services {
  config: Config;
  store: Store;
  /** @deprecated transitional (issue 13): the driver under `store`; modules not yet on repositories use it. */
  db: Db;
  readiness: Readiness;
  failpoints: Failpoints;
  /** Identifies this process as a lease owner (SPEC §4.2, §6). */
  instanceId: string;
  /** How long a creating request's lease on its operation lasts before recovery may take over. */
  leaseMs: number;
  /** Verified API tokens, briefly (domain/tokens/token-cache.ts). */
  tokenCache: TokenCache;
  /** Per-actor request rate, per process (auth/rate-limit.ts). */
  rateLimiter: RateLimiter;
  /** The relay's in-process side: live streams wait on it (domain/events/hub.ts). */
  hub: EventHub;
  /** The agent runners profiles can name (runtime/agent-runners.ts). */
  agentRunners: AgentRunners;
  /** SPEC §4.1 step 10: what starts after a successful Complete (runtime/dispatcher.ts). */
  dispatcher: CreationDispatcher;
}

export interface ServiceOptions extends Partial<Omit<Services, 'store' | 'db'>> {
  /** A store to use; else one over `db`; else one opened from `config.databaseUrl`. */
  store?: Store;
  db?: Db;
}

export function createServices(options: ServiceOptions = {}): Services {
  const config = options.config ?? loadConfig();
  const store =
    options.store ??
    new Store(
      options.db ??
        openDb(config.databaseUrl, {
          max: config.postgres.poolSize,
          connectTimeoutMs: config.postgres.connectTimeoutMs,
          queryTimeoutMs: config.postgres.queryTimeoutMs,
        }),
      { oneStatementCreate: config.postgres.oneStatementCreate },
    );
  const services: Services = {
    config,
    store,
    db: store.driver,
    readiness: options.readiness ?? new Readiness(),
    failpoints: options.failpoints ?? new Failpoints(config.failpointsEnabled),
    instanceId: options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: options.leaseMs ?? config.leaseMs,
    tokenCache: options.tokenCache ?? new TokenCache(config.auth.tokenCacheMs),
    rateLimiter: options.rateLimiter ?? new RateLimiter(config.auth.rateLimitPerSec, config.auth.rateLimitBurst),
    hub: options.hub ?? new EventHub(),
    agentRunners: options.agentRunners ?? new AgentRunners(),
    dispatcher: options.dispatcher ?? launchDispatcher(() => services),
  };
  return services;
}
