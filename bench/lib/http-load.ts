// Tether over HTTP with autocannon (keep-alive connections, one request in flight per connection, so
// `connections` is the same fixed concurrency the in-process and raw series use). Each request gets its own
// body through `setupRequest`: Found picks a random held identity, Created a never-used one.
import autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import type { LoadResult } from './measure';
import { randomInt } from './measure';

export type Surface = 'rest' | 'trpc';
export type HttpSeries = 'found' | 'created' | 'lookup';

export interface HttpTarget {
  url: string;
  token: string;
  workspaceId: string;
  /** Identities `ext-1 … ext-N` held in the workspace. */
  held: number;
}

const run = randomUUID().slice(0, 8);
let counter = 0;
const freshId = () => `new-${run}-${++counter}`;
const heldId = (t: HttpTarget) => `ext-${1 + randomInt(t.held)}`;

function request(t: HttpTarget, surface: Surface, series: HttpSeries) {
  const create = (externalId: string) =>
    JSON.stringify({ workspace_id: t.workspaceId, external_id: externalId, title: 'bench task' });
  const id = series === 'created' ? freshId : () => heldId(t);
  if (series === 'lookup') {
    const path =
      surface === 'rest'
        ? () => `/api/v1/workspaces/${t.workspaceId}/tasks/by-external-id?external_id=${id()}`
        : () =>
            `/api/trpc/task.byExternalId?input=${encodeURIComponent(JSON.stringify({ workspace_id: t.workspaceId, external_id: id() }))}`;
    return { method: 'GET', setupRequest: (req: object) => ({ ...req, path: path() }) };
  }
  return {
    method: 'POST',
    path: surface === 'rest' ? '/api/v1/tasks' : '/api/trpc/task.create',
    setupRequest: (req: object) => ({ ...req, body: create(id()) }),
  };
}

export async function httpLoad(
  t: HttpTarget,
  surface: Surface,
  series: HttpSeries,
  opts: { connections: number; seconds: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: t.url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    requests: [request(t, surface, series)],
  });
  const errors = result.errors + result.timeouts + result.non2xx;
  return {
    opsPerSec: result['2xx'] / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ops: result['2xx'],
    errors,
    firstError: errors ? `${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts` : undefined,
  };
}
