// SPEC §13: "Each creation operation keeps the request id (X-Request-Id) of the request that began it and of every
// takeover, and the console finds an operation by it, so an operator can follow a client's failed request to what
// became of it; a failed attempt's error stays visible on the operation." Before, a step that failed once (the client
// got a 500) and was re-run by recovery left "completed, 2 attempts" and a takeover — no error, no request id.
// Through the real HTTP server on both dialects.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/server/domain/access';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import type { Db } from '../../../src/server/db/types';
import { createLogger } from '../../../src/server/observability/logger';
import { claimExpired, driveRecovered } from '../../../src/server/runtime/recovery';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq, until, userActor, withPlannedStep, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, type TestApi } from '../../support/http';

const createCaller = createCallerFactory(appRouter);
const written: string[] = [];
let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let viewer: Actor;

const as = (actor: Actor) => createCaller(createContextInner({ services: api.services, actor, source: 'console' }));
const logLines = () => written.map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db, {
    log: createLogger({ level: 'info', format: 'json' }, { write: (line: string) => written.push(line) }),
  });
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  viewer = userActor({ [ws.id]: 'viewer' });
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const create = (body: Record<string, unknown>, requestId: string) =>
  call(api.url, 'POST', '/api/v1/tasks', {
    token,
    body: { workspace_id: ws.id, ...body },
    headers: { 'x-request-id': requestId },
  });

async function operationOf(ext: string) {
  return (await db.one<{ id: unknown; request_id: unknown }>(
    'SELECT id, request_id FROM creation_operations WHERE external_id = $1',
    [ext],
  ))!;
}

describe('request ids on creation operations (SPEC §13)', () => {
  it('a create keeps the X-Request-Id of the request that began it — a one-transaction create and a planned one alike', async () => {
    const plain = uniq('plain-');
    const planned = uniq('planned-');
    expect((await create({ external_id: plain, title: 'plain' }, `req-${plain}`)).status).toBe(200);
    expect((await create(withPlannedStep({ external_id: planned, title: 'planned' }), `req-${planned}`)).status).toBe(
      200,
    );
    expect(String((await operationOf(plain)).request_id)).toBe(`req-${plain}`);
    expect(String((await operationOf(planned)).request_id)).toBe(`req-${planned}`);
    // A request without one gets the id the server made for it (echoed to the client), and that is what is kept.
    const unnamed = uniq('unnamed-');
    const r = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: unnamed, title: 'u' },
    });
    expect(String((await operationOf(unnamed)).request_id)).toBe(r.headers.get('x-request-id'));
    // tRPC keeps it too.
    const viaTrpc = uniq('trpc-');
    await call(api.url, 'POST', '/api/trpc/task.create', {
      token,
      body: { workspace_id: ws.id, external_id: viaTrpc, title: 't' },
      headers: { 'x-request-id': `req-${viaTrpc}` },
    });
    expect(String((await operationOf(viaTrpc)).request_id)).toBe(`req-${viaTrpc}`);
  });

  it('a step that failed once: the client’s 500 leads by its request id to the operation, its error, the takeover and the end', async () => {
    const ext = uniq('flaky-');
    const clientId = `client-${ext}`;
    api.services.failpoints.arm({ name: 'step_before_effect', action: 'error', match: `${ext}#0`, times: 1 });
    const failed = await create(withPlannedStep({ external_id: ext, title: 'Flaky' }), clientId);
    api.services.failpoints.release('step_before_effect');
    expect(failed.status).toBe(500);
    expect(failed.headers.get('x-request-id')).toBe(clientId);
    const opId = String((await operationOf(ext)).id);

    // The operator has only the client's request id: it finds the operation, still open, with the attempt's error.
    const found = await as(viewer).console.operations({ workspace_id: ws.id, q: clientId });
    expect(found.rows.map((o) => [o.id, o.state, o.request_id])).toEqual([[opId, 'preparing', clientId]]);
    expect(found.rows[0]!.current_step).toMatchObject({
      index: 0,
      kind: 'remote_contribution',
      state: 'running',
      attempts: 1,
    });
    let detail = await as(viewer).console.operation({ id: opId });
    expect(detail.history).toEqual([
      expect.objectContaining({
        kind: 'attempt_failed',
        request_id: clientId,
        generation: 0,
        step_index: 0,
        step_kind: 'remote_contribution',
        error: 'internal (internal error): failpoint step_before_effect',
      }),
    ]);

    // Recovery takes over once the lease has expired: the takeover has a request id of its own, logged as well.
    const expired = new Date(Date.now() - 60_000).toISOString();
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE id = $1', [opId, expired]);
    await db.run("UPDATE creation_steps SET lease_expires_at = $2 WHERE operation_id = $1 AND state = 'running'", [
      opId,
      expired,
    ]);
    // This test claims it, unless the server's own recovery worker got there first (either is a takeover).
    const mine = (await claimExpired(api.services, 50)).find((h) => h.operationId === opId);
    if (mine) await driveRecovered(api.services, mine);
    await until(
      async () => (await as(viewer).console.operation({ id: opId })).operation.state === 'completed',
      10_000,
      'recovery to complete it',
    );

    detail = await as(viewer).console.operation({ id: opId });
    expect(detail.operation).toMatchObject({ state: 'completed', request_id: clientId });
    const takeoverId = detail.history.find((e) => e.kind === 'takeover')?.request_id;
    expect(takeoverId).toMatch(/^recovery-[0-9a-f-]{36}$/);
    expect(detail.history.map((e) => [e.kind, e.request_id])).toEqual([
      ['attempt_failed', clientId],
      ['takeover', takeoverId],
      ['step_reconciled', takeoverId],
    ]);
    expect(detail.steps[0]).toMatchObject({ state: 'succeeded', attempts: 2 });
    await until(
      () =>
        logLines().some(
          (l) => l.msg === 'creation recovery took over' && l.req_id === takeoverId && l.operation_id === opId,
        ),
      5_000,
      'the takeover log line',
    );
    // The takeover's id finds the operation as well.
    expect(
      (await as(viewer).console.operations({ workspace_id: ws.id, q: takeoverId! })).rows.map((o) => o.id),
    ).toEqual([opId]);
  });

  it('an operation begun with an API token names the token (not "unknown")', async () => {
    const ext = uniq('who-');
    await create({ external_id: ext, title: 'who' }, `req-${ext}`);
    const [op] = (await as(viewer).console.operations({ workspace_id: ws.id, q: `req-${ext}` })).rows;
    expect(op!.actor).toMatchObject({ kind: 'token', label: expect.stringMatching(/^token “test-\w+”$/) });
    const d = await as(viewer).console.operation({ id: op!.id });
    expect(d.operation.actor).toEqual(op!.actor);
  });

  it('an open operation says which step it is on, on Unsettled and in the list', async () => {
    const ext = uniq('paused-');
    api.services.failpoints.arm({ name: 'step_before_effect', action: 'pause', match: `${ext}#0` });
    const pending = create(withPlannedStep({ external_id: ext, title: 'Paused' }), `req-${ext}`);
    try {
      await until(() => (api.services.failpoints.paused.get('step_before_effect') ?? 0) > 0, 10_000, 'the paused step');
      const row = (await as(viewer).console.unsettled({ workspace_id: ws.id })).find((r) => r.task.external_id === ext);
      expect(row!.operation).toMatchObject({
        steps_total: 1,
        steps_succeeded: 0,
        current_step: { index: 0, kind: 'remote_contribution', state: 'running', attempts: 1 },
      });
    } finally {
      api.services.failpoints.release('step_before_effect');
    }
    expect((await pending).status).toBe(200);
    const [done] = (await as(viewer).console.operations({ workspace_id: ws.id, q: `req-${ext}` })).rows;
    expect(done).toMatchObject({ state: 'completed', current_step: null });
  });
});

describe('request ids on releases, replays and key conflicts (SPEC §7, §13)', () => {
  it('a release keeps its request id; a replay and a key conflict are kept beside it, with who and theirs', async () => {
    const ext = uniq('rel-');
    await create({ external_id: ext, title: 'to release' }, `req-${ext}`);
    const key = randomUUID();
    const release = (externalId: string, requestId: string) =>
      call(
        api.url,
        'DELETE',
        `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${encodeURIComponent(externalId)}`,
        {
          token,
          headers: { 'idempotency-key': key, 'x-request-id': requestId },
        },
      );
    expect((await release(ext, 'rel-first')).status).toBe(204);
    expect((await release(ext, 'rel-replay')).status).toBe(204);
    expect((await release(`${ext}-other`, 'rel-conflict')).status).toBe(409);

    const page = await as(viewer).console.releases({ workspace_id: ws.id, q: 'rel-first' });
    expect(page.rows).toHaveLength(1);
    expect(page.rows[0]).toMatchObject({ request_id: 'rel-first', external_id: ext, result: 'released' });
    expect(page.rows[0]!.attempts).toEqual([
      {
        kind: 'replay',
        at: expect.any(String),
        actor: expect.objectContaining({ kind: 'token' }),
        source: 'rest',
        external_id: ext,
        request_id: 'rel-replay',
      },
      {
        kind: 'conflict',
        at: expect.any(String),
        actor: expect.objectContaining({ kind: 'token' }),
        source: 'rest',
        external_id: `${ext}-other`,
        request_id: 'rel-conflict',
      },
    ]);
    // The identity's history lists the release with its request id.
    const h = await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: ext });
    expect(h.releases.map((r) => r.request_id)).toEqual(['rel-first']);
  });
});
