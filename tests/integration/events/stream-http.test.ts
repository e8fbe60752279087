// SPEC §9: live subscribers over real HTTP — the REST SSE stream and the tRPC subscription (SSE) — resume with
// Last-Event-ID and receive every missed event once, in order.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { makeWorkspace, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, type TestApi, useApiWorld } from '../../support/http';
import { openSse } from './sse-client';
import { setFileEnv } from '../../support/file-env';

setFileEnv({ TETHER_RELAY_POLL_MS: '20' });

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

useApiWorld((w) => ({ db, api, ws, token } = w));

async function createTask(title: string): Promise<string> {
  const r = await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title } });
  expect(r.status).toBe(200);
  return (r.json as { id: string }).id;
}

const streamPath = () => `${api.url}/api/v1/workspaces/${ws.id}/events/stream`;

describe('REST SSE stream (SPEC §9)', () => {
  it('with no stream waiting, the relay moves its bound without reading events; a stream opened later still gets them', async () => {
    const hub = api.services.hub;
    const before = hub.safe ?? 0;
    const made = [await createTask('unwatched 1'), await createTask('unwatched 2')];
    // The relay proves a bound past both creates' events…
    const deadline = Date.now() + 10_000;
    while ((hub.safe ?? 0) < before + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(hub.safe ?? 0).toBeGreaterThanOrEqual(before + 2);
    // …without reading them: nobody in this process was waiting for them.
    expect(hub.last).toBeUndefined();
    // A subscriber resuming from before them reads them from the database, in order.
    const resumed = await openSse(streamPath(), { authorization: `Bearer ${token}`, 'last-event-id': String(before) });
    const got = await resumed.waitFor(2);
    resumed.close();
    expect(got.map((f) => [f.event, JSON.parse(f.data).task_id])).toEqual(made.map((id) => ['task.created', id]));
  });

  it('a subscriber that resumes with Last-Event-ID gets every missed event once, in order', async () => {
    const first = await openSse(streamPath(), { authorization: `Bearer ${token}` });
    expect(first.status).toBe(200);
    await new Promise((r) => setTimeout(r, 100)); // subscribed "from now"
    const a = await createTask('a');
    const frames = await first.waitFor(1);
    first.close();
    const lastId = frames.at(-1)!.id!;

    // Missed while disconnected: a create, an update, a delete.
    const b = await createTask('b');
    expect((await call(api.url, 'PATCH', `/api/v1/tasks/${a}`, { token, body: { title: 'a2' } })).status).toBe(200);
    expect((await call(api.url, 'DELETE', `/api/v1/tasks/${b}`, { token })).status).toBe(204);

    const resumed = await openSse(streamPath(), { authorization: `Bearer ${token}`, 'last-event-id': lastId });
    const got = await resumed.waitFor(3);
    await new Promise((r) => setTimeout(r, 200)); // nothing else arrives
    resumed.close();
    expect(resumed.frames.map((f) => [f.event, JSON.parse(f.data).task_id])).toEqual([
      ['task.created', b],
      ['task.updated', a],
      ['task.deleted', b],
    ]);
    const ids = got.map((f) => Number(f.id));
    expect(ids[0]!).toBeGreaterThan(Number(lastId));
    expect([...ids].sort((x, y) => x - y)).toEqual(ids);
    expect(got.every((f) => JSON.parse(f.data).seq === Number(f.id))).toBe(true);
  });

  it('a caller without access to the workspace gets the ordinary 404 and no stream', async () => {
    const other = await makeToken(db, [(await makeWorkspace(db)).id]);
    const res = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/events/stream`, { token: other });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'not found' });
  });

  it('GET /events pages with after/limit and next_after, seq ascending', async () => {
    const own = await makeWorkspace(db);
    const t = await makeToken(db, [own.id]);
    for (let i = 0; i < 3; i++)
      await call(api.url, 'POST', '/api/v1/tasks', { token: t, body: { workspace_id: own.id, title: `p${i}` } });
    const p1 = await call(api.url, 'GET', `/api/v1/workspaces/${own.id}/events?limit=2`, { token: t });
    const body1 = p1.json as { events: Array<{ seq: number }>; next_after: number };
    expect(body1.events).toHaveLength(2);
    const p2 = await call(api.url, 'GET', `/api/v1/workspaces/${own.id}/events?limit=2&after=${body1.next_after}`, {
      token: t,
    });
    const body2 = p2.json as { events: Array<{ seq: number }> };
    expect(body2.events).toHaveLength(1);
    expect(body2.events[0]!.seq).toBeGreaterThan(body1.events[1]!.seq);
  });
});

describe('tRPC subscription over SSE (SPEC §9)', () => {
  it('event.onEvent yields tracked events whose id is the seq, and resumes after lastEventId', async () => {
    const own = await makeWorkspace(db);
    const t = await makeToken(db, [own.id]);
    const mk = async (title: string) =>
      (
        (await call(api.url, 'POST', '/api/v1/tasks', { token: t, body: { workspace_id: own.id, title } })).json as {
          id: string;
        }
      ).id;
    const x = await mk('x');
    const y = await mk('y');
    const list = (await call(api.url, 'GET', `/api/v1/workspaces/${own.id}/events`, { token: t })).json as {
      events: Array<{ seq: number }>;
    };
    const afterFirst = String(list.events[0]!.seq);
    const input = encodeURIComponent(JSON.stringify({ workspace_id: own.id, lastEventId: afterFirst }));
    const sub = await openSse(`${api.url}/api/trpc/event.onEvent?input=${input}`, { authorization: `Bearer ${t}` });
    expect(sub.status).toBe(200);
    const z = await mk('z');
    // tRPC also sends a `connected` frame (no id); the events are the frames with an id.
    await sub.waitFor(3);
    const frames = sub.frames.filter((f) => f.id !== undefined);
    sub.close();
    const tasks = frames.map((f) => JSON.parse(f.data).task_id);
    expect(tasks).toEqual([y, z]);
    expect(tasks).not.toContain(x);
    expect(frames.map((f) => JSON.parse(f.data).seq)).toEqual(frames.map((f) => Number(f.id)));
  });

  /** The whole SSE answer of a tRPC subscription that ends (an error ends it); fails rather than waits on a live one. */
  async function subscriptionText(
    input: object,
    t: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    const q = encodeURIComponent(JSON.stringify(input));
    const res = await fetch(`${api.url}/api/trpc/event.onEvent?input=${q}`, {
      headers: { authorization: `Bearer ${t}`, accept: 'text/event-stream', ...headers },
      signal: AbortSignal.timeout(5_000),
    });
    return { status: res.status, text: await res.text() };
  }

  /** The `serialized-error` frame's data: how tRPC's client learns why a subscription failed. */
  function errorFrame(text: string): unknown {
    const m = /event: serialized-error\ndata: (.*)\n/.exec(text);
    return m ? JSON.parse(m[1]!) : undefined;
  }

  it("a workspace the caller cannot see is NOT_FOUND `not found`, as REST's 404, byte-identical whether or not it exists (SPEC §10, §11)", async () => {
    const other = await makeToken(db, [(await makeWorkspace(db)).id]);
    const foreign = await subscriptionText({ workspace_id: ws.id }, other);
    const missing = await subscriptionText({ workspace_id: `${ws.id.slice(0, -4)}0000` }, other);
    // tRPC streams its refusal (the status is the stream's); the stream then ends, carrying no event.
    expect(foreign.status).toBe(200);
    expect(errorFrame(foreign.text)).toEqual({
      message: 'not found',
      code: -32004,
      data: { code: 'NOT_FOUND', httpStatus: 404, path: 'event.onEvent', domainCode: 'not_found' },
    });
    expect(foreign.text).not.toMatch(/^id:/m);
    expect(missing.text).toBe(foreign.text);
    const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/events/stream`, { token: other });
    expect([rest.status, (rest.json as { error: string }).error]).toEqual([404, 'not found']);
  });

  it("a lastEventId that is not an event id is BAD_REQUEST with REST's words, not a silent resume after it", async () => {
    const rest = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/events/stream`, {
      token,
      headers: { 'last-event-id': '99999999999999999999999' },
    });
    expect(rest.status).toBe(400);
    const expected = {
      message: (rest.json as { error: string }).error,
      code: -32600,
      data: { code: 'BAD_REQUEST', httpStatus: 400, path: 'event.onEvent', domainCode: 'invalid_payload' },
    };
    expect(expected.message).toBe('invalid payload: Last-Event-ID must be an event id');
    for (const bad of ['99999999999999999999999', '9007199254740993', '-1', '1.5', 'abc']) {
      // In the input (httpSubscriptionLink's reconnect) and as the header (EventSource's): tRPC reads both.
      expect(errorFrame((await subscriptionText({ workspace_id: ws.id, lastEventId: bad }, token)).text), bad).toEqual(
        expected,
      );
      expect(
        errorFrame((await subscriptionText({ workspace_id: ws.id }, token, { 'last-event-id': bad })).text),
        bad,
      ).toEqual(expected);
    }
  });
});
