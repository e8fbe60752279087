// Everything a request needs, built once per process (brief: "load the domain code once per process").
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { loadConfig, type Config } from './config';
import { openDb } from './db/dialect';
import type { Db } from './db/types';
import { Failpoints } from './failpoints';
import { Readiness } from './readiness';

export interface Services {
  config: Config;
  db: Db;
  readiness: Readiness;
  failpoints: Failpoints;
  /** Identifies this process as a lease owner (SPEC §4.2, §6). */
  instanceId: string;
  /** How long a creating request's lease on its operation lasts before recovery may take over. */
  leaseMs: number;
}

export function createServices(overrides: Partial<Services> & { config?: Config } = {}): Services {
  const config = overrides.config ?? loadConfig();
  const db = overrides.db ?? openDb(config.databaseUrl);
  return {
    config,
    db,
    readiness: overrides.readiness ?? new Readiness(),
    failpoints: overrides.failpoints ?? new Failpoints(config.failpointsEnabled),
    instanceId: overrides.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    // SPEC §6: short enough that a dead creator's operation is recovered within seconds; renewed every third.
    leaseMs: overrides.leaseMs ?? Number(process.env.TETHER_LEASE_MS ?? 5_000),
  };
}
