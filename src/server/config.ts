// Process configuration, read once. Every setting has a default that works on a fresh machine.
import { resolve } from 'node:path';

export interface Config {
  databaseUrl: string;
  port: number;
  host: string;
  dataDir: string;
  /** Failpoints are test hooks (issue 3 item 7); only honoured when TETHER_FAILPOINTS=1. */
  failpointsEnabled: boolean;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.TETHER_DATA_DIR ?? './data');
  return {
    databaseUrl: env.DATABASE_URL?.trim() || `file:${resolve(dataDir, 'tether.db')}`,
    port: Number(env.PORT ?? 3000),
    host: env.HOST ?? '0.0.0.0',
    dataDir,
    failpointsEnabled: env.TETHER_FAILPOINTS === '1' && env.NODE_ENV !== 'production',
  };
}
