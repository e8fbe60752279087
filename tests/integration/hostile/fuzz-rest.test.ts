// Hostile input over real HTTP on the REST surface (SPEC §10). Whatever a client sends —
// arbitrary JSON, wrong types, huge or deeply nested values, unknown fields, NUL, lone surrogates, bidi marks,
// broken query strings and headers — the answer is never a 5xx, never carries internal detail, and a refusal
// writes nothing (SPEC §4.1: errors and Found have zero side effects).
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, type CallResult, type TestApi, useApiWorld } from '../../support/http';
import {
  cursorAccepted,
  cursorText,
  escapeBytes,
  expectClean,
  fuzzRuns,
  hostileCreateBody,
  hostileHeaderValue,
  hostileQueryValue,
  hostileRawBody,
  hostileValue,
  invalidUtf8,
  oddString,
  pageNumberText,
  probe as probeDb,
  spliceBytes,
  tableCounts,
  wholeTextIn,
} from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let taskId: string;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  const r = await call(api.url, 'POST', '/api/v1/tasks', {
    token,
    body: { workspace_id: ws.id, external_id: uniq('fz-'), title: 'Target' },
  });
  taskId = (r.json as { id: string }).id;
});

const probe = (send: () => Promise<CallResult>, what: string, allow?: (status: number) => string[]) =>
  probeDb(db, send, what, allow);

describe('REST create (POST /api/v1/tasks) under hostile bodies', () => {
  it('arbitrary JSON bodies: no 5xx, no leak, no row on a refusal', async () => {
    const statuses = new Set<number>();
    await fc.assert(
      fc.asyncProperty(hostileCreateBody({ workspaceId: ws.id, stepId: ws.steps[0]!.id }), async (body) => {
        const res = await probe(
          () => call(api.url, 'POST', '/api/v1/tasks', { token, body }),
          `create ${JSON.stringify(body).slice(0, 200)}`,
        );
        statuses.add(res.status);
      }),
      { numRuns: fuzzRuns(250) },
    );
    // The generator must reach past the envelope: some creates succeed, some are refused.
    expect(statuses).toContain(200);
    expect(statuses).toContain(400);
  });

  it('raw bodies that are not JSON (or JSON no parser likes) are a clean 400', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRawBody, async (rawBody) => {
        const res = await probe(
          () => call(api.url, 'POST', '/api/v1/tasks', { token, rawBody }),
          `raw ${rawBody.slice(0, 80)}`,
        );
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('a __proto__ key neither pollutes prototypes nor escapes validation', async () => {
    const rawBody = `{"__proto__":{"title":"from proto","admin":true},"workspace_id":"${ws.id}","external_id":"${uniq('proto-')}"}`;
    const res = await probe(() => call(api.url, 'POST', '/api/v1/tasks', { token, rawBody }), 'proto');
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'title is required' });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('odd headers (authorization, content-type, accept) never produce a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileHeaderValue, hostileHeaderValue, async (auth, ctype) => {
        await probe(
          () =>
            call(api.url, 'POST', '/api/v1/tasks', {
              headers: { authorization: auth, 'content-type': ctype, accept: ctype },
              body: { workspace_id: ws.id, title: 'T' },
            }),
          `headers ${auth} / ${ctype}`,
        );
      }),
      { numRuns: fuzzRuns(100) },
    );
  });
});

describe('REST lookup and release under hostile query strings and keys', () => {
  it('lookup (GET …/by-external-id) never 5xx and never writes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(ws.id), hostileQueryValue),
        hostileQueryValue,
        fc.boolean(),
        async (wsPart, q, twice) => {
          const query = `external_id=${q}${twice ? `&external_id=${q}` : ''}`;
          // Read-only: even a 200 writes nothing, so check every status.
          const before = await tableCounts(db);
          const res = await call(api.url, 'GET', `/api/v1/workspaces/${wsPart}/tasks/by-external-id?${query}`, {
            token,
          });
          expectClean(res, `lookup ${wsPart} ${query.slice(0, 120)}`);
          expect(await tableCounts(db)).toEqual(before);
        },
      ),
      { numRuns: fuzzRuns(200) },
    );
  });

  it('release (DELETE …/by-external-id) never 5xx; a 400 stores nothing, a 404 at most its replay record', async () => {
    const key = fc.oneof(fc.uuid().map(String), fc.constant(randomUUID()), hostileHeaderValue);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(ws.id), hostileQueryValue),
        hostileQueryValue,
        key,
        async (wsPart, q, k) => {
          await probe(
            () =>
              call(api.url, 'DELETE', `/api/v1/workspaces/${wsPart}/tasks/by-external-id?external_id=${q}`, {
                token,
                headers: k ? { 'idempotency-key': k } : {},
              }),
            `release ${wsPart} ${q.slice(0, 80)} key=${k}`,
            // SPEC §7: "no holder" is itself a result that is stored and replayed.
            (status) => (status === 404 ? ['release_operations'] : []),
          );
        },
      ),
      { numRuns: fuzzRuns(150) },
    );
  });
});

describe('REST update (PATCH /api/v1/tasks/:id) under hostile bodies', () => {
  it('arbitrary patches to a real task: no 5xx, no row on a refusal', async () => {
    const patch = fc.oneof(
      fc.record(
        {
          title: hostileValue,
          description: hostileValue,
          step_id: fc.oneof(fc.constant(ws.steps[1]!.id), hostileValue),
          external_id: oddString,
        },
        { requiredKeys: [] },
      ),
      hostileValue,
    );
    await fc.assert(
      fc.asyncProperty(patch, async (body) => {
        await probe(
          () => call(api.url, 'PATCH', `/api/v1/tasks/${taskId}`, { token, body }),
          `patch ${JSON.stringify(body).slice(0, 200)}`,
        );
      }),
      { numRuns: fuzzRuns(200) },
    );
    // SPEC §2.3: no update surface changes the identity, whatever the patch said.
    const after = await call(api.url, 'GET', `/api/v1/tasks/${taskId}`, { token });
    expect((after.json as { external_id?: string }).external_id).toMatch(/^fz-/);
  });

  it('hostile task ids in the path never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(hostileQueryValue, async (id) => {
        await probe(
          () => call(api.url, 'PATCH', `/api/v1/tasks/${id}`, { token, body: { title: 'x' } }),
          `patch id ${id.slice(0, 80)}`,
        );
      }),
      { numRuns: fuzzRuns(100) },
    );
  });
});

describe('NUL characters (regression: PostgreSQL answered 500 for a NUL in any text parameter)', () => {
  it('a NUL in a title is a 400 on both dialects, naming the field, and nothing is written', async () => {
    const res = await probe(
      () => call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title: 'a\u0000b' } }),
      'nul title',
    );
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid payload: title must not contain NUL (U+0000) characters' });
  });

  it('a NUL in a task id path segment is a 400, not a 500', async () => {
    const res = await probe(
      () => call(api.url, 'PATCH', '/api/v1/tasks/%00', { token, body: { title: 'x' } }),
      'nul id',
    );
    expect(res.status).toBe(400);
  });
});

describe('bytes that are not UTF-8, list cursors, page limits', () => {
  let adminToken: string;
  let webhookId: string;
  beforeAll(async () => {
    adminToken = await makeToken(db, [ws.id], ['tasks:read', 'admin']);
    const hook = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: adminToken,
      body: { url: 'https://hooks.invalid/h' },
    });
    webhookId = (hook.json as { id: string }).id;
  });

  const postBytes = async (body: Buffer): Promise<CallResult> => {
    const res = await call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: new Uint8Array(body) });
    if (res.json === undefined) throw new Error(`not JSON: ${res.text}`);
    return res;
  };

  it('a create body with bytes that are not UTF-8 anywhere in a string: 400 invalid payload, nothing written', async () => {
    const field = fc.constantFrom('external_id', 'title', 'description');
    await fc.assert(
      fc.asyncProperty(invalidUtf8, field, oddString, async (bad, name, around) => {
        const json = JSON.stringify({
          workspace_id: ws.id,
          external_id: uniq('u8f-'),
          title: 'T',
          [name]: `${around.replace(/@@/g, '')}@@`,
        });
        const res = await probe(() => postBytes(spliceBytes(json, bad)), `bytes ${bad.toString('hex')} in ${name}`);
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ error: 'invalid payload' });
      }),
      { numRuns: fuzzRuns(100) },
    );
  });

  it('query strings whose escapes are not UTF-8: lookup, release and list all refuse, nothing written', async () => {
    const where = fc.constantFrom('lookup', 'release', 'list');
    await fc.assert(
      fc.asyncProperty(invalidUtf8, where, async (bad, w) => {
        const q = `external_id=u8q-${escapeBytes(bad)}&archived=include`;
        const path = `/api/v1/workspaces/${ws.id}/${w === 'list' ? 'tasks' : 'tasks/by-external-id'}?${q}`;
        const res = await probe(
          () =>
            call(api.url, w === 'release' ? 'DELETE' : 'GET', path, {
              token,
              headers: { 'idempotency-key': randomUUID() },
            }),
          `${w} ${q}`,
        );
        expect(res.status).toBe(400);
        expect(res.json).toEqual({ error: 'invalid payload: the query string is not valid UTF-8' });
      }),
      { numRuns: fuzzRuns(60) },
    );
  });

  it('?cursor= on the task list: a next_cursor value is a page, anything else the one 400', async () => {
    await fc.assert(
      fc.asyncProperty(cursorText, async (cursor) => {
        const res = await probe(
          () =>
            call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks?cursor=${encodeURIComponent(cursor)}`, { token }),
          `cursor ${JSON.stringify(cursor)}`,
        );
        if (cursorAccepted(cursor)) expect(res.status, JSON.stringify(cursor)).toBe(200);
        else {
          expect(res.status, JSON.stringify(cursor)).toBe(400);
          expect((res.json as { error: string }).error).toMatch(
            /^invalid request: cursor: expected a next_cursor value/,
          );
        }
      }),
      { numRuns: fuzzRuns(150) },
    );
  });

  it('?limit= and ?after= on tasks, events and deliveries: the shared page rule, never a 5xx', async () => {
    const list = fc.constantFrom(
      { path: () => `/api/v1/workspaces/${ws.id}/tasks`, name: 'limit', min: 1, max: 200, tok: () => token },
      { path: () => `/api/v1/workspaces/${ws.id}/events`, name: 'limit', min: 1, max: 500, tok: () => token },
      {
        path: () => `/api/v1/workspaces/${ws.id}/events`,
        name: 'after',
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        tok: () => token,
      },
      {
        path: () => `/api/v1/workspaces/${ws.id}/webhooks/${webhookId}/deliveries`,
        name: 'limit',
        min: 1,
        max: 500,
        tok: () => adminToken,
      },
      {
        path: () => `/api/v1/workspaces/${ws.id}/webhooks/${webhookId}/deliveries`,
        name: 'after',
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
        tok: () => adminToken,
      },
    );
    await fc.assert(
      fc.asyncProperty(list, pageNumberText, async (l, v) => {
        const res = await probe(
          () => call(api.url, 'GET', `${l.path()}?${l.name}=${encodeURIComponent(v)}`, { token: l.tok() }),
          `${l.path()} ${l.name}=${v}`,
        );
        if (wholeTextIn(v, l.min, l.max)) expect(res.status, `${l.name}=${v}`).toBe(200);
        else {
          expect(res.status, `${l.name}=${v}`).toBe(400);
          expect(res.json).toEqual({
            error: `invalid request: ${l.name}: expected a whole number from ${l.min} to ${l.max}`,
          });
        }
      }),
      { numRuns: fuzzRuns(200) },
    );
  });
});
