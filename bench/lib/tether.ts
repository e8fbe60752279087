// Tether in-process: the domain functions every surface calls, with no transport in front of them.
// Statement counts come from the Db seam's counters (db.stats), which count every statement, write and
// transaction the dialect executes — counted, not guessed.
import type { Actor } from '../../src/server/domain/access';
import { authenticate } from '../../src/server/auth/authenticate';
import type { DbStats } from '../../src/server/db/types';
import { createTask } from '../../src/server/domain/tasks/create-task';
import { lookupTaskByExternalId } from '../../src/server/domain/tasks/lookup-task';
import type { Services } from '../../src/server/services';
import { randomInt } from './measure';

let counter = 0;
const tag = Math.random().toString(36).slice(2, 8);

export interface InProcess {
  found(): Promise<void>;
  created(): Promise<void>;
  lookup(): Promise<void>;
}

export function inProcess(services: Services, actor: Actor, workspaceId: string, held: number): InProcess {
  const body = (externalId: string) => ({ workspace_id: workspaceId, external_id: externalId, title: 'bench task' });
  return {
    async found() {
      const outcome = await createTask(services, actor, body(`ext-${1 + randomInt(held)}`));
      if (outcome.kind !== 'found_settled') throw new Error(`expected found_settled, got ${outcome.kind}`);
    },
    async created() {
      const outcome = await createTask(services, actor, body(`inproc-${tag}-${++counter}`));
      if (outcome.kind !== 'created') throw new Error(`expected created, got ${outcome.kind}`);
    },
    async lookup() {
      await lookupTaskByExternalId(services, actor, workspaceId, `ext-${1 + randomInt(held)}`);
    },
  };
}

export type PerCall = DbStats;

/** Runs `fn` `n` times one after another and divides the counters' growth by `n`. */
export async function perCall(stats: DbStats, n: number, fn: () => Promise<unknown>): Promise<PerCall> {
  const before = { ...stats };
  for (let i = 0; i < n; i++) await fn();
  return {
    statements: (stats.statements - before.statements) / n,
    writes: (stats.writes - before.writes) / n,
    transactions: (stats.transactions - before.transactions) / n,
  };
}

export interface Counts {
  authCold: PerCall;
  authWarm: PerCall;
  found: PerCall;
  created: PerCall;
  lookup: PerCall;
}

export async function countStatements(services: Services, token: string, p: InProcess, n: number): Promise<Counts> {
  const headers = { authorization: `Bearer ${token}` };
  const auth = () => authenticate(services, headers, { method: 'POST' });
  const authCold = await perCall(services.store.driver.stats, n, async () => {
    services.tokenCache.clear();
    await auth();
  });
  const authWarm = await perCall(services.store.driver.stats, n, auth);
  return {
    authCold,
    authWarm,
    found: await perCall(services.store.driver.stats, n, p.found),
    created: await perCall(services.store.driver.stats, n, p.created),
    lookup: await perCall(services.store.driver.stats, n, p.lookup),
  };
}
