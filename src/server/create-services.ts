// Builds the Services (services.ts) once per process: the composition root. Only entry points (main, the CLI,
// workers, tests and the bench) import this file, so no module that Services is made of depends on it.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { RateLimiter } from './auth/rate-limit';
import { loadConfig } from './config';
import { openDb } from './db/dialect';
import { Store } from './db/store';
import { EventHub } from './domain/events/hub';
import { TokenCache } from './domain/tokens/token-cache';
import { Failpoints } from './failpoints';
import { Readiness } from './readiness';
import { AgentRunners } from './runtime/agent-runners';
import { launchDispatcher } from './runtime/dispatcher';
import type { ServiceOptions, Services } from './services';

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
