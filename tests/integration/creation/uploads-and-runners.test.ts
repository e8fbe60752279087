// The attachment upload surface (REST multipart, size-limited, authenticated) and the webhook agent runner.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import type { Db } from '../../../src/server/db/types';
import { createAgentProfile } from '../../../src/server/domain/agents/profiles';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { createApiToken } from '../../../src/server/domain/tokens/api-tokens';
import { createHttpServer } from '../../../src/server/app';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import { call, type CallResult } from '../../support/http';
import { count, testServices, uniq, until } from '../../support/fixtures';
import { dataDir, makeWorld, type World } from './world';
import { LOOPBACK_NETWORKS } from '../events/receiver';
import { setFileEnv } from '../../support/file-env';

setFileEnv({ TETHER_WEBHOOK_ALLOWED_NETWORKS: LOOPBACK_NETWORKS }); // the webhook runner's service listens on 127.0.0.1

let db: Db;
let services: Services;
let w: World;
let server: Server;
let base: string;
let token: string;

function listen(s: Server): Promise<string> {
  return new Promise((done) =>
    s.listen(0, '127.0.0.1', () => done(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );
}

beforeAll(async () => {
  db = await freshDb();
  services = await testServices(db, { config: { ...loadConfig(), failpointsEnabled: true, dataDir: dataDir() } });
  w = await makeWorld(services);
  token = (await createApiToken(services.store, { name: 'uploader', workspaceIds: [w.ws.id], scopes: ['tasks:write'] }))
    .token;
  server = createHttpServer(services); // the real router: every answer is held to the OpenAPI document (call())
  base = await listen(server);
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await db?.close();
});

function post(form: FormData, auth = `Bearer ${token}`): Promise<CallResult> {
  return call(base, 'POST', '/api/v1/attachments', { form, headers: { authorization: auth } });
}

function form(workspaceId: string, content: string): FormData {
  const f = new FormData();
  f.set('workspace_id', workspaceId);
  f.set('file', new Blob([content]), 'spec.txt');
  return f;
}

describe('POST /api/v1/attachments', () => {
  it('stores the upload under the data folder, unclaimed, and a create can claim it', async () => {
    const res = await post(form(w.ws.id, 'hello attachment'));
    expect(res.status).toBe(201);
    const body = res.json as { id: string; size_bytes: number; filename: string };
    expect(body).toMatchObject({ size_bytes: 16, filename: 'spec.txt' });
    const row = await db.one<{ storage_path: string; task_id: string | null }>(
      'SELECT storage_path, task_id FROM attachments WHERE id = $1',
      [body.id],
    );
    expect(row?.storage_path.startsWith(services.config.dataDir)).toBe(true);
    expect(readFileSync(row!.storage_path, 'utf8')).toBe('hello attachment');
    const created = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      title: 'with file',
      attachments: [body.id],
    });
    expect(
      await count(db, 'SELECT COUNT(*) AS n FROM attachments WHERE id = $1 AND task_id = $2', [
        body.id,
        created.task.id,
      ]),
    ).toBe(1);
  });

  it('refuses an upload over the size limit with 413 and stores nothing', async () => {
    // The upload path reads config.http.attachmentMaxBytes (TETHER_ATTACHMENT_MAX_BYTES) per request.
    const limit = services.config.http.attachmentMaxBytes;
    services.config.http.attachmentMaxBytes = 1024;
    try {
      const before = await count(db, 'SELECT COUNT(*) AS n FROM attachments');
      const res = await post(form(w.ws.id, 'x'.repeat(200_000)));
      expect(res.status).toBe(413);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM attachments')).toBe(before);
    } finally {
      services.config.http.attachmentMaxBytes = limit;
    }
  });

  it('answers 401 without a credential', async () => {
    expect((await post(form(w.ws.id, 'x'), 'Bearer nope')).status).toBe(401);
  });

  it('answers 404 for a workspace the token may not use', async () => {
    expect((await post(form('another-workspace', 'x'))).status).toBe(404);
  });
});

describe('webhook agent runner', () => {
  it('posts the launch to the profile URL once, with the intent id as Idempotency-Key', async () => {
    const received: Array<{ key: string | undefined; body: Record<string, unknown> }> = [];
    const hook = createServer((req, res) => {
      let data = '';
      req.on('data', (d) => (data += d));
      req.on('end', () => {
        received.push({ key: req.headers['idempotency-key'] as string | undefined, body: JSON.parse(data) });
        res.writeHead(202).end();
      });
    });
    const url = await listen(hook);
    try {
      const profile = await createAgentProfile(
        services.store,
        { workspaceId: w.ws.id, name: uniq('hook'), runner: 'webhook', config: { url: `${url}/launch` } },
        services.destinations,
      );
      const out = await createTask(services, w.actor, {
        workspace_id: w.ws.id,
        title: 'agent task',
        start_agent: true,
        agent_profile_id: profile.id,
      });
      await until(() => received.length > 0, 10_000, 'webhook call');
      await until(
        async () =>
          (await count(db, "SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1 AND runner = 'webhook'", [
            out.task.id,
          ])) === 1,
      );
      expect(received).toHaveLength(1);
      expect(received[0]!.body).toMatchObject({ task_id: out.task.id, identifier: out.task.identifier });
      expect(received[0]!.key).toBe(received[0]!.body.intent_id);
      expect(existsSync(w.root)).toBe(true);
    } finally {
      await new Promise((r) => hook.close(r));
    }
  });
});

describe('runners and dispatch belong to the services they were built with (no module state)', () => {
  it('a runner registered on one Services launches its profiles there and is unknown to another', async () => {
    const own = await testServices(db, { config: services.config });
    const launched: string[] = [];
    own.agentRunners.register({
      name: 'custom',
      async launch(req) {
        launched.push(req.taskId);
        return { ok: true };
      },
    });
    const profile = await createAgentProfile(own.store, {
      workspaceId: w.ws.id,
      name: uniq('custom'),
      runner: 'custom',
    });
    const out = await createTask(own, w.actor, {
      workspace_id: w.ws.id,
      title: 'custom runner',
      start_agent: true,
      agent_profile_id: profile.id,
    });
    // The launch is recorded once the runner accepted it.
    await until(
      async () =>
        (await count(db, "SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1 AND runner = 'custom'", [
          out.task.id,
        ])) === 1,
    );
    expect(launched).toEqual([out.task.id]);
    expect(() => services.agentRunners.get('custom')).toThrow(/no agent runner named custom/);
  });

  it('the dispatcher the services were built with runs once after Complete, and never for Found', async () => {
    const plans: string[] = [];
    const own = await testServices(db, {
      config: services.config,
      dispatcher: { afterComplete: (plan) => plans.push(plan.startPolicy) },
    });
    const body = {
      workspace_id: w.ws.id,
      external_id: uniq('dispatch-'),
      title: 't',
      start_agent: true,
      agent_profile_id: w.profileId,
    };
    expect((await createTask(own, w.actor, body)).kind).toBe('created');
    expect(plans).toEqual(['immediate']);
    expect((await createTask(own, w.actor, body)).kind).toBe('found_settled');
    expect(plans).toEqual(['immediate']);
  });
});
