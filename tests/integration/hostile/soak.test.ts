// A short version of `npm run soak` (bench/soak.ts): the same mixed workload for ~20 s against
// two real server processes sharing one database (the full soak runs the built app on PostgreSQL for minutes).
import { describe, expect, it } from 'vitest';
import { soakPassed, soakWorkload, seedSoak, type SoakReport, type SoakSetup } from '../../../bench/soak';
import type { Db } from '../../../src/server/db/types';
import { useServerProcesses, type ServerProcess } from '../../support/processes';

const SECONDS = Number(process.env.TETHER_SOAK_SECONDS ?? 20);

describe(`short soak (${SECONDS} s, two server processes)`, () => {
  let db: Db;
  let servers: ServerProcess[] = [];
  let setup: SoakSetup;
  let report: SoakReport;

  useServerProcesses(
    async (w) => {
      ({ db, servers } = w);
      setup = {
        ...(await seedSoak(db)),
        db,
        targets: servers.map((s) => s.url),
        pids: servers.map((s) => s.child.pid!),
      };
      report = await soakWorkload(setup, { seconds: SECONDS, clients: 8 });
      console.info(
        `[soak] ${JSON.stringify({ ...report, rssMb: report.rssMb.map(({ samples: _samples, ...r }) => r) })}`,
      );
    },
    { env: { TETHER_LEASE_MS: '2000' }, timeoutMs: 180_000 },
  );

  it('exercises every kind of request', () => {
    for (const op of ['create_new', 'create_dup', 'lookup_rest', 'lookup_trpc', 'console_read'])
      expect(report.byOperation[op] ?? 0, op).toBeGreaterThan(0);
  });

  it('answers no 5xx and loses no connection', () => {
    expect(report.serverErrors).toEqual([]);
    expect(report.transportErrors).toBe(0);
  });

  it('creates no duplicates (by the client count and in the database)', () => {
    expect(report.duplicateCreates).toBe(0);
    expect(report.duplicateRows).toBe(0);
  });

  it('leaves the recovery runtime idle: no operation open past its lease', () => {
    expect(report.leftoverOperations).toBe(0);
    expect(soakPassed(report)).toBe(true);
  });
});
