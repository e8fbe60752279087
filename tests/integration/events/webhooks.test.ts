// SPEC §9: webhooks — each event signed (HMAC-SHA256 over the raw body), retried with backoff until it succeeds,
// in seq order, every attempt recorded and visible; the secret is shown once.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { freshDb } from '../../support/db';
import { makeWorkspace, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, type TestApi } from '../../support/http';
import { LOOPBACK_NETWORKS, startReceiver, type Receiver } from './receiver';
import { setFileEnv } from '../../support/file-env';

setFileEnv({
  TETHER_RELAY_POLL_MS: '20',
  TETHER_WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS, // the receiver listens on 127.0.0.1
  TETHER_WEBHOOK_BACKOFF_MS: '50',
});

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let admin: string;
let writer: string;
let receiver: Receiver;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  admin = await makeToken(db, [ws.id], ['admin']);
  writer = await makeToken(db, [ws.id], ['tasks:read', 'tasks:write']);
  // Fails the first two requests, then accepts everything.
  receiver = await startReceiver((n) => (n <= 2 ? 500 : 200));
});
afterAll(async () => {
  await api.close();
  await receiver.close();
});

const SECRET = 'a-test-secret-of-enough-length';

describe('webhooks (SPEC §9)', () => {
  let hookId: string;
  const tasks: string[] = [];

  it('a receiver that fails twice then succeeds gets every event once accepted, signed, in seq order', async () => {
    const created = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: receiver.url, secret: SECRET },
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ url: receiver.url, secret: SECRET });
    hookId = (created.json as { id: string }).id;

    for (const title of ['one', 'two', 'three']) {
      const r = await call(api.url, 'POST', '/api/v1/tasks', { token: writer, body: { workspace_id: ws.id, title } });
      tasks.push((r.json as { id: string }).id);
    }
    await until(() => receiver.accepted().length >= 3, 15_000, 'three accepted deliveries');
    await new Promise((r) => setTimeout(r, 200)); // no late duplicates
    const accepted = receiver.accepted();
    expect(accepted.map((e) => [e.type, e.task_id])).toEqual(tasks.map((t) => ['task.created', t]));
    // The failed attempts were all for the first event: later events waited behind it (order).
    expect(receiver.received.slice(0, 3).map((r) => JSON.parse(r.body).task_id)).toEqual([
      tasks[0],
      tasks[0],
      tasks[0],
    ]);
    for (const r of receiver.received) {
      const expected = `sha256=${createHmac('sha256', SECRET).update(r.body).digest('hex')}`;
      expect(r.headers['x-tether-signature']).toBe(expected);
      expect(r.headers['x-tether-event-id']).toBe(JSON.parse(r.body).id);
    }
  });

  it('every attempt is recorded and visible, and the secret is never returned again', async () => {
    const list = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/webhooks`, { token: admin });
    expect(list.text).not.toContain(SECRET);
    const res = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/webhooks/${hookId}/deliveries`, {
      token: admin,
    });
    expect(res.text).not.toContain(SECRET);
    const { deliveries } = res.json as {
      deliveries: Array<{ state: string; attempts: number; attempt_log: Array<{ outcome: string; status: number }> }>;
    };
    expect(deliveries.map((d) => [d.state, d.attempts])).toEqual([
      ['delivered', 3],
      ['delivered', 1],
      ['delivered', 1],
    ]);
    expect(deliveries[0]!.attempt_log.map((a) => [a.outcome, a.status])).toEqual([
      ['failed', 500],
      ['failed', 500],
      ['succeeded', 200],
    ]);
  });

  it('webhook management is admin only: a writer gets the ordinary not-found', async () => {
    const res = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/webhooks`, { token: writer });
    expect(res.status).toBe(404);
  });

  it('deleting the workspace still delivers its task.deleted events to the webhook, then stops', async () => {
    const res = await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ deleted_tasks: 3 });
    await until(() => receiver.accepted().length >= 6, 15_000, 'three task.deleted deliveries');
    expect(
      receiver
        .accepted()
        .slice(3)
        .map((e) => [e.type, e.task_id]),
    ).toEqual(tasks.map((t) => ['task.deleted', t]));
  });
});
