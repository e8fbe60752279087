// The composition root of a process's Services (services.ts): what the server, the CLI, the workers, the tests and the
// bench build once per process. It imports no HTTP layer (app.ts mounts those), so a `tether` command that only needs
// the store does not load tRPC, REST or MCP.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { RateLimiter } from './auth/rate-limit';
import { loadConfig } from './config';
import { openDb } from './db/drivers';
import { Store } from './db/store';
import { CreationPulse } from './domain/console/pulse';
import { DestinationPolicy } from './domain/outbound/destinations';
import { EventHub } from './domain/events/hub';
import { TokenCache } from './domain/tokens/token-cache';
import { TokenUsage } from './domain/tokens/token-usage';
import { Failpoints } from './failpoints';
import { createLogger, createRequestLogger, withoutRedaction } from './observability/logger';
import { Metrics, type MetricSources } from './observability/metrics';
import { CLEANUP_FAILING_AFTER } from './domain/creation/cleanup';
import { RequestScope } from './observability/request-scope';
import { Readiness } from './readiness';
import { AgentRunners } from './runtime/agent-runners';
import { launchDispatcher } from './runtime/dispatcher';
import type { ServiceOptions, Services } from './services';

/** How often a process writes when its API tokens were last used (SPEC §11: last-used time, not a write per request). */
const TOKEN_USAGE_FLUSH_MS = 60_000;

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
          directUrl: config.directDatabaseUrl ?? undefined,
        }),
    );
  const log = options.log ?? createLogger(config.log);
  const destinations = options.destinations ?? new DestinationPolicy(config.webhooks.allowedNetworks);
  const services: Services = {
    config,
    store,
    readiness: options.readiness ?? new Readiness(),
    failpoints: options.failpoints ?? new Failpoints(config.failpointsEnabled),
    instanceId: options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: options.leaseMs ?? config.leaseMs,
    tokenCache: options.tokenCache ?? new TokenCache(config.auth.tokenCacheMs),
    tokenUsage:
      options.tokenUsage ??
      new TokenUsage(
        (uses) => store.tokens.recordUse(uses),
        TOKEN_USAGE_FLUSH_MS,
        (err) => log.warn({ err: (err as Error).message }, 'could not record when API tokens were last used'),
      ),
    rateLimiter: options.rateLimiter ?? new RateLimiter(config.auth.rateLimitPerSec, config.auth.rateLimitBurst),
    hub: options.hub ?? new EventHub(),
    pulse: options.pulse ?? new CreationPulse(() => store.pulse.openOperations()),
    destinations,
    agentRunners: options.agentRunners ?? new AgentRunners(config.agents, destinations),
    dispatcher: options.dispatcher ?? launchDispatcher(() => services),
    log,
    requestLog: options.requestLog ?? (options.log ? withoutRedaction(options.log) : createRequestLogger(config.log)),
    metrics: options.metrics ?? new Metrics(metricSources(() => services)),
    requests: options.requests ?? new RequestScope(),
  };
  return services;
}

/** The metrics' scrape-time readings, from these services (read only when Prometheus scrapes). */
function metricSources(services: () => Services): MetricSources {
  return {
    identityReady: () => services().readiness.current.ready,
    unsettledIdentities: () => services().store.stats.unsettledIdentities(),
    relaySafe: () => {
      const { hub } = services();
      return hub.stopped ? undefined : hub.safe;
    },
    outboxHead: () => services().store.stats.outboxHead(),
    firstEventAfter: (seq) => services().store.stats.firstEventAfter(seq),
    cleanup: async () => {
      const { store } = services();
      return {
        pending: (await store.cleanup.summary(CLEANUP_FAILING_AFTER, 1)).pending,
        failing: await store.cleanup.countFailing(CLEANUP_FAILING_AFTER),
      };
    },
    pool: () => services().store.driver.poolStats(),
  };
}
