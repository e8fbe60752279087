// Issue 9 item 1 on the tRPC surface (SPEC §10): task.create, task.byExternalId, task.releaseExternalId and
// task.update over real HTTP with hostile inputs → never a 5xx, never internal detail, no row on a refusal.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, trpc, type CallResult, type TestApi, useApiWorld } from '../../support/http';
import { expectClean, fuzzRuns, hostileCreateBody, hostileRawBody, hostileValue, oddString, probe as probeDb, tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let taskId: string;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  const r = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, external_id: uniq('tz-'), title: 'Target' }, token);
  taskId = (r.json as { result: { data: { id: string } } }).result.data.id;
});

const probe = (send: () => Promise<CallResult>, what: string, allow?: (status: number) => string[]) => probeDb(db, send, what, allow);

describe('tRPC task.create under hostile input', () => {
  it('arbitrary inputs: no 5xx, no leak, no row on a refusal', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(hostileCreateBody({ workspaceId: ws.id, stepId: ws.steps[0]!.id }), async (input) => {
        const res = await probe(() => trpc(api.url, 'mutation', 'task.create', input, token), `create ${JSON.stringify(input).slice(0, 200)}`);
        statuses.add(res.status);
      }),
      { numRuns: fuzzRuns(250) },
    );
    expect(statuses).toContain(200);
    expect(statuses).toContain(400);
  });

  it('raw bodies that are not JSON are a clean 400', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRawBody, async (rawBody) => {
        await probe(() => call(api.url, 'POST', '/api/trpc/task.create', { token, rawBody }), `raw ${rawBody.slice(0, 80)}`);
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('refusals carry the error table words, not tRPC or zod internals', async () => {
    const res = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, title: 42 }, token);
    expect(res.status).toBe(400);
    const err = (res.json as { error: { message: string; data: Record<string, unknown> } }).error;
    expect(err.message).toBe('title is required');
    expect(err.data).not.toHaveProperty('stack');
  });
});

describe('tRPC lookup, release and update under hostile input', () => {
  it('task.byExternalId (GET ?input=) never 5xx and never writes', async () => {
    const input = fc.oneof(
      fc.record({ workspace_id: fc.oneof(fc.constant(ws.id), hostileValue), external_id: fc.oneof(oddString, hostileValue) }, { requiredKeys: [] }),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const before = await tableCounts(db);
        const res = await trpc(api.url, 'query', 'task.byExternalId', i, token);
        expectClean(res, `byExternalId ${JSON.stringify(i).slice(0, 200)}`);
        expect(await tableCounts(db)).toEqual(before);
      }),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('a query string that is not JSON, or is repeated, is a clean 400', async () => {
    for (const q of ['input=%7B', 'input=%00', 'input=%ZZ', 'input=1&input=2', 'input=' + 'a'.repeat(8000), 'batch=1&input=%7B%7D']) {
      const res = await call(api.url, 'GET', `/api/trpc/task.byExternalId?${q}`, { token });
      expectClean(res, q.slice(0, 60));
    }
  });

  it('task.releaseExternalId never 5xx; refusals store nothing but a 404 replay record', async () => {
    const input = fc.record(
      {
        workspace_id: fc.oneof(fc.constant(ws.id), hostileValue),
        external_id: fc.oneof(oddString, hostileValue),
        idempotency_key: fc.oneof(fc.uuid().map(String), hostileValue),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        // The procedure answers "nothing holds it" as data (status 404 inside a 200) and stores that result.
        const before = await tableCounts(db);
        const res = await trpc(api.url, 'mutation', 'task.releaseExternalId', i, token);
        expectClean(res, `release ${JSON.stringify(i).slice(0, 200)}`);
        const after = await tableCounts(db);
        if (res.status >= 400) expect(after).toEqual(before);
        else expect({ ...after, release_operations: 0 }).toEqual({ ...before, release_operations: 0 });
      }),
      { numRuns: fuzzRuns(150) },
    );
  });

  it('task.update with arbitrary patches: no 5xx, no row on a refusal, identity untouched', async () => {
    const input = fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.constant(taskId), hostileValue),
          patch: fc.oneof(
            fc.record({ title: hostileValue, description: hostileValue, step_id: hostileValue, external_id: oddString }, { requiredKeys: [] }),
            hostileValue,
          ),
        },
        { requiredKeys: [] },
      ),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        await probe(() => trpc(api.url, 'mutation', 'task.update', i, token), `update ${JSON.stringify(i).slice(0, 200)}`);
      }),
      { numRuns: fuzzRuns(200) },
    );
    const after = await trpc(api.url, 'query', 'task.get', { id: taskId }, token);
    expect((after.json as { result: { data: { external_id?: string } } }).result.data.external_id).toMatch(/^tz-/);
  });
});
