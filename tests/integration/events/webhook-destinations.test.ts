// SPEC §9: webhook destinations are untrusted. A URL whose host is — or resolves, when the delivery connects, to — a
// loopback, link-local, private, unique-local, carrier-grade NAT, unspecified or multicast address is refused at
// registration (400, nothing stored) and never called; a failed delivery's error does not tell how an internal
// address answered (the port-scan oracle: `HTTP 302`, `UND_ERR_SOCKET`, `ENOTFOUND` used to differ per target); only
// networks listed in TETHER_WEBHOOK_ALLOWED_NETWORKS are let through. The webhook agent runner follows the same rule.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createAgentProfile } from '../../../src/server/domain/agents/profiles';
import {
  DESTINATION_REFUSED,
  DestinationPolicy,
  type ResolveAll,
} from '../../../src/server/domain/outbound/destinations';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, tokenActor, until, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { startReceiver, type Receiver } from './receiver';
import { setFileEnv } from '../../support/file-env';

setFileEnv({
  TETHER_RELAY_POLL_MS: '20',
  TETHER_WEBHOOK_BACKOFF_MS: '60000', // one attempt per delivery is all these tests look at
  TETHER_WEBHOOK_ALLOWED_NETWORKS: undefined, // the default: nothing inside is allowed
});

/** The odd spellings of inside addresses an attacker tries; every one must be refused by default. */
const INSIDE = [
  'http://127.0.0.1:5432/',
  'http://127.1/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://0177.0.0.1/',
  'http://0.0.0.0/',
  'http://[::]/',
  'http://[::1]:8080/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://localhost:3000/',
  'http://LOCALHOST./',
  'http://api.localhost/',
  'http://169.254.169.254/latest/meta-data/',
  'http://10.1.2.3/',
  'http://172.16.0.1/',
  'http://192.168.1.1/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://[fd00::1]/',
  'http://[fe80::1]/',
  'http://[ff02::1]/',
  'https://user:pw@127.0.0.1/',
];

function listen(server: Server): Promise<number> {
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok((server.address() as AddressInfo).port)));
}

async function deliveriesOf(db: Db, webhookId: string): Promise<Array<{ last_status: unknown; last_error: unknown }>> {
  return db.query('SELECT last_status, last_error FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY event_seq', [
    webhookId,
  ]);
}

describe('by default (no TETHER_WEBHOOK_ALLOWED_NETWORKS)', () => {
  let db: Db;
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: string;
  let receiver: Receiver;
  let redirecting: Server;
  let redirectPort: number;

  beforeAll(async () => {
    db = await freshDb();
    api = await startTestApi(db);
    ws = await makeWorkspace(db);
    admin = await makeToken(db, [ws.id], ['admin', 'tasks:write']);
    receiver = await startReceiver(() => 200);
    redirecting = createServer((_req, res) => res.writeHead(302, { location: receiver.url }).end());
    redirectPort = await listen(redirecting);
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
    await new Promise((ok) => redirecting.close(ok));
  });

  it('registration refuses every spelling of an inside address with a clear 400 and stores nothing (REST)', async () => {
    for (const url of INSIDE) {
      const res = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, { token: admin, body: { url } });
      expect([url, res.status]).toEqual([url, 400]);
      expect((res.json as { error: string }).error).toMatch(
        /^invalid request: url: the destination is not a public address .*TETHER_WEBHOOK_ALLOWED_NETWORKS$/,
      );
    }
    expect(await count(db, 'SELECT COUNT(*) AS n FROM webhooks')).toBe(0);
  });

  it('tRPC refuses the same with the same words', async () => {
    const res = await trpc(
      api.url,
      'mutation',
      'event.createWebhook',
      { workspace_id: ws.id, url: receiver.url },
      admin,
    );
    const error = (res.json as { error: { message: string; data: { code: string; domainCode: string } } }).error;
    expect([res.status, error.data.code, error.data.domainCode]).toEqual([400, 'BAD_REQUEST', 'validation_failed']);
    expect(error.message).toMatch(/^invalid request: url: the destination is not a public address/);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM webhooks')).toBe(0);
  });

  it('a public host is accepted: names are resolved and checked at delivery, not at registration', async () => {
    const res = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: 'https://hooks.example.com/tether' },
    });
    expect(res.status).toBe(201);
    await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${(res.json as { id: string }).id}`, {
      token: admin,
    });
  });

  it('stored inside destinations are never called, and each records the same error whatever answers there', async () => {
    // Rows written past the registration check (an older version, a restored backup): delivery checks again.
    const targets = [
      receiver.url, // a live receiver answering 200
      `http://[::ffff:127.0.0.1]:${new URL(receiver.url).port}/hook`, // the same, IPv4-mapped
      `http://127.0.0.1:${redirectPort}/`, // an open port answering 302
      'http://127.0.0.1:1/', // a closed port
      'http://nothing-here.invalid/', // a name that does not resolve
      `http://localhost:${new URL(receiver.url).port}/hook`, // a name that resolves to loopback
    ];
    const hooks: string[] = [];
    for (const url of targets) {
      const id = randomUUID();
      await api.services.store.webhooks.create({
        id,
        workspaceId: ws.id,
        url,
        secret: 'a-secret-of-sixteen+',
        description: null,
        createdAt: new Date().toISOString(),
      });
      hooks.push(id);
    }
    await call(api.url, 'POST', '/api/v1/tasks', {
      token: admin,
      body: { workspace_id: ws.id, title: 'to nobody inside' },
    });
    for (const id of hooks)
      await until(
        async () => (await deliveriesOf(db, id)).some((d) => d.last_error !== null),
        15_000,
        `attempt of ${id}`,
      );

    expect(receiver.received).toEqual([]);
    const recorded = await Promise.all(hooks.map(async (id) => (await deliveriesOf(db, id))[0]));
    expect(recorded).toEqual(targets.map(() => ({ last_status: null, last_error: DESTINATION_REFUSED })));
    // The attempt log says the same, nothing more.
    const attempts = await db.query<{ status: unknown; error: unknown }>(
      `SELECT status, error FROM webhook_attempts WHERE webhook_id IN (${hooks.map((_, i) => `$${i + 1}`).join(', ')})`,
      hooks,
    );
    expect(new Set(attempts.map((a) => JSON.stringify(a)))).toEqual(
      new Set([JSON.stringify({ status: null, error: DESTINATION_REFUSED })]),
    );
  });

  it('a refused delivery waits out its backoff without spinning the relay while later events queue behind it', async () => {
    // The webhooks above wait 60 s before their next attempt (TETHER_WEBHOOK_BACKOFF_MS). A new event queues a
    // delivery behind each; the relay must not claim them again and again meanwhile (it did: the claim looked at any
    // due delivery, the sender only at the oldest, and the relay drains while it claims — a hot loop that, on
    // SQLite, also starved every timer and socket of the process until the backoff ended).
    await call(api.url, 'POST', '/api/v1/tasks', {
      token: admin,
      body: { workspace_id: ws.id, title: 'queued behind' },
    });
    await until(
      async () => (await count(db, "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'")) >= 12,
      15_000,
      'queued deliveries',
    );
    const stats = api.services.store.driver.stats;
    const before = stats.statements;
    const slept = Date.now();
    await new Promise((ok) => setTimeout(ok, 1000));
    expect(Date.now() - slept).toBeLessThan(3000); // timers still fire
    // At TETHER_RELAY_POLL_MS=20 an idle relay makes a few statements per pass: ~50 passes a second.
    expect(stats.statements - before).toBeLessThan(1000);
  });

  it('the webhook agent runner: an inside URL is refused when the profile is made, and a stored one is never called', async () => {
    await expect(
      createAgentProfile(
        api.services.store,
        { workspaceId: ws.id, name: uniq('inside'), runner: 'webhook', config: { url: receiver.url } },
        api.services.destinations,
      ),
    ).rejects.toThrow(/the destination is not a public address/);
    const profileId = randomUUID();
    await api.services.store.agentProfiles.insert({
      id: profileId,
      workspaceId: ws.id,
      name: uniq('stored'),
      runner: 'webhook',
      config: { url: receiver.url },
      createdAt: new Date().toISOString(),
    });
    const out = await createTask(api.services, tokenActor([ws.id]), {
      workspace_id: ws.id,
      title: 'agent inside',
      start_agent: true,
      agent_profile_id: profileId,
    });
    await until(
      async () =>
        (await count(db, 'SELECT COUNT(*) AS n FROM launch_intents WHERE task_id = $1 AND last_error IS NOT NULL', [
          out.task.id,
        ])) === 1,
      15_000,
      'a failed launch attempt',
    );
    expect(await db.one('SELECT last_error FROM launch_intents WHERE task_id = $1', [out.task.id])).toEqual({
      last_error: `webhook runner: ${DESTINATION_REFUSED}`,
    });
    expect(receiver.received).toEqual([]);
  });
});

describe('TETHER_WEBHOOK_ALLOWED_NETWORKS, and DNS answers that change after registration', () => {
  let db: Db;
  let api: TestApi;
  let ws: TestWorkspace;
  let admin: string;
  let receiver: Receiver;
  /** What the test's resolver answers for `hooks.test` right now (a real resolver's answers may change any time). */
  let answer = ['127.0.0.1'];
  const resolveAll: ResolveAll = (hostname, _options, callback) => {
    if (hostname !== 'hooks.test') return callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

  beforeAll(async () => {
    db = await freshDb();
    const config = { ...loadConfig(), failpointsEnabled: true };
    // Only 127.0.0.1 itself: the rest of 127/8 stays refused, so a changed answer can point where the policy says no.
    const networks = [{ address: '127.0.0.1', prefix: 32, family: 'ipv4' as const }];
    config.webhooks = { ...config.webhooks, allowedNetworks: networks };
    api = await startTestApi(db, { config, destinations: new DestinationPolicy(networks, resolveAll) });
    ws = await makeWorkspace(db);
    admin = await makeToken(db, [ws.id], ['admin', 'tasks:write']);
    receiver = await startReceiver(() => 200);
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  it('an allowed network registers and delivers; another inside address is still refused at registration', async () => {
    const allowed = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: receiver.url },
    });
    expect(allowed.status).toBe(201);
    const refused = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: 'http://127.0.0.2/' },
    });
    expect(refused.status).toBe(400);
    await call(api.url, 'POST', '/api/v1/tasks', { token: admin, body: { workspace_id: ws.id, title: 'allowed' } });
    await until(() => receiver.accepted().length === 1, 15_000, 'a delivery to the allowed network');
    await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${(allowed.json as { id: string }).id}`, {
      token: admin,
    });
  });

  it('a name is checked on the address it resolves to when the delivery connects, not when it was registered', async () => {
    const port = new URL(receiver.url).port;
    answer = ['127.0.0.1'];
    const created = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: `http://hooks.test:${port}/hook` },
    });
    expect(created.status).toBe(201);
    const hookId = (created.json as { id: string }).id;
    const before = receiver.received.length;
    await call(api.url, 'POST', '/api/v1/tasks', { token: admin, body: { workspace_id: ws.id, title: 'first' } });
    await until(() => receiver.received.length === before + 1, 15_000, 'the first delivery');

    // The name now points elsewhere inside: the next delivery never connects.
    answer = ['127.0.0.2'];
    const seen = (await deliveriesOf(db, hookId)).length;
    await call(api.url, 'POST', '/api/v1/tasks', { token: admin, body: { workspace_id: ws.id, title: 'second' } });
    await until(
      async () => (await deliveriesOf(db, hookId)).slice(seen).some((d) => d.last_error !== null),
      15_000,
      'a refused attempt',
    );
    expect((await deliveriesOf(db, hookId)).slice(seen)).toEqual([
      { last_status: null, last_error: DESTINATION_REFUSED },
    ]);
    await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${hookId}`, { token: admin });
    expect(receiver.received.length).toBe(before + 1);
  });

  it('a name answering one allowed and one refused address is refused (either could be connected to)', async () => {
    const port = new URL(receiver.url).port;
    answer = ['127.0.0.1', '10.0.0.7'];
    const created = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
      token: admin,
      body: { url: `http://hooks.test:${port}/mixed` },
    });
    const hookId = (created.json as { id: string }).id;
    const before = receiver.received.length;
    await call(api.url, 'POST', '/api/v1/tasks', { token: admin, body: { workspace_id: ws.id, title: 'mixed' } });
    await until(
      async () => (await deliveriesOf(db, hookId)).some((d) => d.last_error !== null),
      15_000,
      'a refused attempt',
    );
    expect(await deliveriesOf(db, hookId)).toEqual([{ last_status: null, last_error: DESTINATION_REFUSED }]);
    expect(receiver.received.length).toBe(before);
    await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${hookId}`, { token: admin });
  });

  it('an allowed destination that redirects is not followed, and says so', async () => {
    const target = await startReceiver(() => 200);
    const redirecting = createServer((_req, res) => res.writeHead(307, { location: target.url }).end());
    const port = await listen(redirecting);
    try {
      const created = await call(api.url, 'POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
        token: admin,
        body: { url: `http://127.0.0.1:${port}/` },
      });
      const hookId = (created.json as { id: string }).id;
      await call(api.url, 'POST', '/api/v1/tasks', {
        token: admin,
        body: { workspace_id: ws.id, title: 'redirected' },
      });
      await until(
        async () => (await deliveriesOf(db, hookId)).some((d) => d.last_error !== null),
        15_000,
        'the redirected attempt',
      );
      expect(await deliveriesOf(db, hookId)).toEqual([
        { last_status: 307, last_error: 'HTTP 307: redirects are not followed' },
      ]);
      expect(target.received).toEqual([]);
      await call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${hookId}`, { token: admin });
    } finally {
      await target.close();
      await new Promise((ok) => redirecting.close(ok));
    }
  });
});
