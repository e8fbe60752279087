// SPEC §12: legacy rows have a way out, and readiness returns without a restart. A running server
// (in this process, re-attesting on its own) is driven from outside through the real `tether` CLI — `attest`,
// `identity legacy list`, `identity legacy resolve --settle|--release` — and through the console's tRPC procedures;
// every resolution is audited (who, when, which channel) and every identity read answers 503 while not ready, the
// console's find-by-external-id included.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../src/server/db/drivers';
import { migrate } from '../../../src/server/db/schema/migrate';
import type { Db } from '../../../src/server/db/types';
import { freshDatabaseUrl } from '../../support/db';
import { count, makeWorkspace, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { runTether } from '../../support/processes';
import { taskEvents } from '../../support/events';

let url: string;
let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let adminToken: string;
let n = 1000;

const tether = (args: string[]) => runTether(args, { DATABASE_URL: url });

/** A task as a build before the create protocol left it: an identity, no settlement, no creation operation. */
async function insertLegacy(ext: string): Promise<string> {
  const id = randomUUID();
  n++;
  const now = new Date().toISOString();
  await db.run(
    `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id)
     VALUES ($1, $2, $3, $4, 'legacy', $5, $6, $6, 1, 'completed', $7)`,
    [id, ws.id, n, `${ws.prefix}-${n}`, ws.steps[0]!.id, now, ext],
  );
  return id;
}

const serverReady = () => api.services.readiness.current.ready;

beforeAll(async () => {
  url = await freshDatabaseUrl();
  db = openDb(url);
  await migrate(db);
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  adminToken = await makeToken(db, [ws.id], ['admin']);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await db?.close();
});

describe('legacy rows block readiness until resolved; re-attestation needs no restart (SPEC §12)', () => {
  const ext = uniq('legacy-a-');
  let taskId: string;

  it('`tether attest` reports the legacy row (exit 1) and the running server re-attests within seconds', async () => {
    taskId = await insertLegacy(ext);
    expect(serverReady()).toBe(true); // the row appeared behind its back; the 30 s interval has not come round
    const r = await tether(['attest', '--json']);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.stdout) as { ready: boolean; reasons: string[]; legacy: unknown[] };
    expect(body).toMatchObject({ ready: false, legacy: [{ task_id: taskId, workspace_id: ws.id, external_id: ext }] });
    expect(body.reasons.join()).toMatch(/1 legacy task\(s\)/);
    await until(() => !serverReady(), 5_000, 'the server to re-attest');
    expect((await call(api.url, 'GET', '/api/health')).status).toBe(503);
  });

  it('health counts legacy rows for anyone but names them only to a caller who can read their workspace (SPEC §11)', async () => {
    const anonymous = await call(api.url, 'GET', '/api/health');
    expect(anonymous.json).toMatchObject({ ready: false, attestation: { legacy_count: 1, legacy: [] } });
    expect(anonymous.text).not.toContain(ext);
    expect(anonymous.text).not.toContain(taskId);
    const other = await makeWorkspace(db);
    const outsider = await call(api.url, 'GET', '/api/health', {
      token: await makeToken(db, [other.id], ['tasks:read']),
    });
    expect(outsider.text).not.toContain(ext);
    const reader = await call(api.url, 'GET', '/api/health', { token });
    expect(reader.json).toMatchObject({
      attestation: { legacy_count: 1, legacy: [{ task_id: taskId, workspace_id: ws.id, external_id: ext }] },
    });
  });

  it('while not ready every identity read answers 503 with the reason — the console find-by-external-id too', async () => {
    const lookup = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
      token,
    });
    expect(lookup.status).toBe(503);
    expect((lookup.json as { error: string }).error).toMatch(/schema attestation has not passed: .*legacy task/);
    const find = await trpc(
      api.url,
      'query',
      'console.findByExternalId',
      { workspace_id: ws.id, external_id: ext },
      token,
    );
    expect(find.status).toBe(503);
    expect(find.json).toMatchObject({
      error: {
        message: (lookup.json as { error: string }).error,
        data: { code: 'SERVICE_UNAVAILABLE', domainCode: 'identity_not_ready' },
      },
    });
    // Creates without an identity keep working.
    expect(
      (await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title: 'no identity' } }))
        .status,
    ).toBe(200);
  });

  it('`identity legacy list` shows it', async () => {
    const r = await tether(['identity', 'legacy', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([
      expect.objectContaining({
        task_id: taskId,
        workspace_id: ws.id,
        external_id: ext,
        identifier: expect.any(String),
        creation_state: 'completed',
      }),
    ]);
  });

  it('`resolve --settle` settles it as it is, audited, and the server is ready again without a restart', async () => {
    const before = await db.one<Record<string, unknown>>('SELECT revision, external_id FROM tasks WHERE id = $1', [
      taskId,
    ]);
    const r = await tether(['identity', 'legacy', 'resolve', taskId, '--settle', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      action: 'settle',
      task_id: taskId,
      external_id: ext,
      readiness: { ready: true, reasons: [] },
    });
    const row = await db.one<Record<string, unknown>>(
      'SELECT revision, external_id, external_id_settled_at, creation_state FROM tasks WHERE id = $1',
      [taskId],
    );
    expect(row).toMatchObject({ external_id: ext, creation_state: 'completed', revision: before!.revision });
    expect(row!.external_id_settled_at).not.toBeNull();
    const audit = await db.query<Record<string, unknown>>(
      'SELECT action, actor_id, source, external_id, workspace_id FROM legacy_resolutions WHERE task_id = $1',
      [taskId],
    );
    expect(audit).toEqual([
      {
        action: 'settle',
        actor_id: expect.stringMatching(/^cli:/),
        source: 'cli',
        external_id: ext,
        workspace_id: ws.id,
      },
    ]);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM release_operations WHERE holder_task_id = $1', [taskId])).toBe(0);
    await until(serverReady, 5_000, 'the server to be ready again');
    const lookup = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
      token,
    });
    expect(lookup.json).toMatchObject({ id: taskId, external_id: ext, creation_complete: true });
  });

  it('`resolve --release` frees the identity like a release: next revision, one task.updated event, a release record', async () => {
    const ext2 = uniq('legacy-b-');
    const id = await insertLegacy(ext2);
    await api.services.readiness.refresh(db);
    const r = await tether(['identity', 'legacy', 'resolve', id, '--release', '--json']);
    expect(r.code).toBe(0);
    const row = await db.one<Record<string, unknown>>(
      'SELECT revision, external_id, external_id_settled_at FROM tasks WHERE id = $1',
      [id],
    );
    expect(row).toMatchObject({ external_id: null, external_id_settled_at: null });
    expect(Number(row!.revision)).toBe(2);
    const events = await taskEvents(db, id);
    expect(events.map((e) => e.type)).toEqual(['task.updated']);
    expect(events[0]!.task).not.toHaveProperty('external_id');
    expect(
      await db.query('SELECT source, result_status, external_id FROM release_operations WHERE holder_task_id = $1', [
        id,
      ]),
    ).toEqual([{ source: 'cli', result_status: 204, external_id: ext2 }]);
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM legacy_resolutions WHERE task_id = $1 AND action = 'release'", [id]),
    ).toBe(1);
    await until(serverReady, 5_000, 'the server to be ready again');
    // The identity is free: the next create with it makes a new task.
    const next = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: ext2, title: 'new' },
    });
    expect(next.json).toMatchObject({ deduplicated: false });
    expect((next.json as { id: string }).id).not.toBe(id);
  });

  it('refuses with one line and changes nothing: no flag, both flags, a task that is not legacy, an unknown task', async () => {
    const id = await insertLegacy(uniq('legacy-c-'));
    const settled = (
      await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title: 'plain' } })
    ).json as { id: string };
    const cases: Array<[string[], RegExp]> = [
      [[id], /exactly one of --settle or --release/],
      [[id, '--settle', '--release'], /exactly one of --settle or --release/],
      [[settled.id, '--settle'], /is not a legacy identity row/],
      [[randomUUID(), '--release'], /^error: not found\n$/],
    ];
    const rowsBefore = await db.query('SELECT * FROM tasks ORDER BY id');
    for (const [args, message] of cases) {
      const r = await tether(['identity', 'legacy', 'resolve', ...args]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(message);
    }
    expect(await db.query('SELECT * FROM tasks ORDER BY id')).toEqual(rowsBefore);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM legacy_resolutions WHERE task_id = $1', [id])).toBe(0);
    // Leave nothing blocking the next tests.
    expect((await tether(['identity', 'legacy', 'resolve', id, '--settle'])).code).toBe(0);
  });
});

describe('the console view (identity.*, workspace admins only)', () => {
  it('lists the workspace legacy rows, resolves one (audited as the console caller), and re-attests on demand', async () => {
    const ext = uniq('legacy-d-');
    const id = await insertLegacy(ext);
    const attest = await trpc(api.url, 'mutation', 'identity.attest', { workspace_id: ws.id }, adminToken);
    expect(attest.status).toBe(200);
    expect(attest.json).toMatchObject({ result: { data: { ready: false } } });
    expect(serverReady()).toBe(false);

    const view = await trpc(api.url, 'query', 'identity.readiness', { workspace_id: ws.id }, adminToken);
    expect(view.json).toMatchObject({
      result: { data: { ready: false, legacy: [{ task_id: id, external_id: ext }] } },
    });

    // Not an admin of the workspace: the same 404 as a workspace that is not there, and nothing changes.
    for (const [proc, kind, input] of [
      ['identity.readiness', 'query', { workspace_id: ws.id }],
      ['identity.attest', 'mutation', { workspace_id: ws.id }],
      ['identity.resolveLegacy', 'mutation', { workspace_id: ws.id, task_id: id, action: 'settle' }],
    ] as const) {
      const denied = await trpc(api.url, kind, proc, input, token);
      expect(denied.status).toBe(404);
      expect(denied.json).toMatchObject({ error: { message: 'not found' } });
    }
    expect(await count(db, 'SELECT COUNT(*) AS n FROM legacy_resolutions WHERE task_id = $1', [id])).toBe(0);

    const resolved = await trpc(
      api.url,
      'mutation',
      'identity.resolveLegacy',
      { workspace_id: ws.id, task_id: id, action: 'settle' },
      adminToken,
    );
    expect(resolved.json).toMatchObject({
      result: { data: { action: 'settle', task_id: id, external_id: ext, readiness: { ready: true } } },
    });
    expect(serverReady()).toBe(true);
    const audit = await db.one<Record<string, unknown>>(
      'SELECT action, source, actor_id FROM legacy_resolutions WHERE task_id = $1',
      [id],
    );
    expect(audit).toMatchObject({ action: 'settle', source: 'trpc' });
    expect(String(audit!.actor_id)).not.toMatch(/^cli:/);
  });
});
