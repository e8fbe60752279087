// The identity contract at the REST and tRPC edges, over real HTTP (SPEC §2.1, §3, §7, §10, §11).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { count, makeWorkspace, uniq, withPlannedStep, type TestWorkspace } from '../../support/fixtures';
import { freshDb } from '../../support/db';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;
let token: string;
let otherToken: string;
let readOnly: string;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  other = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  otherToken = await makeToken(db, [other.id]);
  readOnly = await makeToken(db, [ws.id], ['tasks:read']);
});
afterAll(async () => {
  await api.close();
  await db.close();
});

const post = (body: unknown, t = token) => call(api.url, 'POST', '/api/v1/tasks', { token: t, body });
const lookup = (ext: string, t = token, wsId = ws.id) =>
  call(api.url, 'GET', `/api/v1/workspaces/${wsId}/tasks/by-external-id?external_id=${encodeURIComponent(ext)}`, {
    token: t,
  });
const release = (ext: string, key: string | null = randomUUID(), t = token, wsId = ws.id) =>
  call(api.url, 'DELETE', `/api/v1/workspaces/${wsId}/tasks/by-external-id?external_id=${encodeURIComponent(ext)}`, {
    token: t,
    headers: key === null ? {} : { 'idempotency-key': key },
  });
const rows = () => count(db, 'SELECT COUNT(*) AS n FROM tasks');

describe('REST create (SPEC §3, §10)', () => {
  it('golden path: Created, then Found with the same id; lookup 200; miss 404', async () => {
    const ext = uniq('gold-');
    const a = await post({ workspace_id: ws.id, external_id: ext, title: 'Golden' });
    expect(a.status).toBe(200);
    expect(a.json).toMatchObject({ external_id: ext, deduplicated: false, creation_complete: true, title: 'Golden' });
    const b = await post({ workspace_id: ws.id, external_id: ext, title: 'Changed' });
    expect(b.json).toMatchObject({
      id: (a.json as { id: string }).id,
      deduplicated: true,
      creation_complete: true,
      title: 'Golden',
    });
    const l = await lookup(ext);
    expect(l.status).toBe(200);
    expect(l.json).toMatchObject({ id: (a.json as { id: string }).id, creation_complete: true });
    expect(l.json).not.toHaveProperty('deduplicated');
    const miss = await lookup(uniq('miss-'));
    expect(miss.status).toBe(404);
    expect(miss.json).toEqual({ error: 'task not found' });
  });

  it('omits external_id (not null) when none is held; task reads carry neither boolean', async () => {
    const a = await post({ workspace_id: ws.id, title: 'No identity' });
    expect(a.status).toBe(200);
    expect(a.json).not.toHaveProperty('external_id');
    expect(a.json).toMatchObject({ deduplicated: false, creation_complete: true });
    const g = await call(api.url, 'GET', `/api/v1/tasks/${(a.json as { id: string }).id}`, { token });
    expect(g.status).toBe(200);
    expect(g.json).not.toHaveProperty('external_id');
    expect(g.json).not.toHaveProperty('creation_complete');
    expect(g.json).not.toHaveProperty('deduplicated');
  });

  const invalid: Array<[string, unknown, string]> = [
    ['newline at the end', 'ext-1\n', 'invalid external_id: control characters are not allowed'],
    ['a lone tab', '\t', 'invalid external_id: control characters are not allowed'],
    ['NUL inside', 'a\u0000b', 'invalid external_id: control characters are not allowed'],
    ['DEL inside', 'a\u007fb', 'invalid external_id: control characters are not allowed'],
    ['256 bytes', 'x'.repeat(256), 'invalid external_id: must be 255 UTF-8 bytes or fewer'],
    ['64 four-byte characters (256 bytes)', '😀'.repeat(64), 'invalid external_id: must be 255 UTF-8 bytes or fewer'],
  ];
  for (const [name, value, message] of invalid) {
    it(`REST refuses ${name} with 400 "${message}" and writes nothing`, async () => {
      const before = await rows();
      const r = await post({ workspace_id: ws.id, external_id: value, title: 'T' });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: message });
      expect(await rows()).toBe(before);
    });
    it(`tRPC refuses ${name} with BAD_REQUEST and the same message`, async () => {
      const r = await trpc(
        api.url,
        'mutation',
        'task.create',
        { workspace_id: ws.id, external_id: value, title: 'T' },
        token,
      );
      expect(r.status).toBe(400);
      expect((r.json as { error: { message: string; data: { code: string } } }).error).toMatchObject({
        message,
        data: { code: 'BAD_REQUEST' },
      });
    });
  }

  it('accepts exactly 255 bytes, including a boundary of four-byte characters', async () => {
    const ext = `${'😀'.repeat(63)}abc`; // 252 + 3 = 255 bytes
    const r = await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(r.status).toBe(200);
    expect((r.json as { external_id: string }).external_id).toBe(ext);
  });

  it('invalid JSON → 400 invalid payload; missing workspace → 400 workspace_id is required', async () => {
    const bad = await call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: '{"title":' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'invalid payload' });
    const nows = await post({ title: 'T', external_id: 'x' });
    expect(nows.status).toBe(400);
    expect(nows.json).toEqual({ error: 'workspace_id is required' });
  });

  it('unauthenticated → 401', async () => {
    const r = await call(api.url, 'POST', '/api/v1/tasks', { body: { workspace_id: ws.id, title: 'T' } });
    expect(r.status).toBe(401);
    const bad = await call(api.url, 'POST', '/api/v1/tasks', {
      token: 'tth_nope_nope',
      body: { workspace_id: ws.id, title: 'T' },
    });
    expect(bad.status).toBe(401);
  });
});

describe('access (SPEC §11)', () => {
  it('unauthorized create/lookup/release → 404 with a body of exactly one key, identical for held-settled, held-unsettled and free', async () => {
    const settled = uniq('held-');
    await post({ workspace_id: ws.id, external_id: settled, title: 'T' });
    const unsettled = uniq('uns-');
    api.services.failpoints.arm({ name: 'after_begin', action: 'pause', match: unsettled, times: 1 });
    const pending = post(withPlannedStep({ workspace_id: ws.id, external_id: unsettled, title: 'T' }));
    await expect.poll(() => api.services.failpoints.paused.get('after_begin') ?? 0).toBe(1);
    const free = uniq('free-');
    const bodies = new Set<string>();
    for (const ext of [settled, unsettled, free]) {
      const c = await post({ workspace_id: ws.id, external_id: ext, title: 'T' }, otherToken);
      expect(c.status).toBe(404);
      bodies.add(`create ${c.text}`);
      const l = await lookup(ext, otherToken);
      expect(l.status).toBe(404);
      bodies.add(`lookup ${l.text}`);
      const r = await release(ext, randomUUID(), otherToken);
      expect(r.status).toBe(404);
      bodies.add(`release ${r.text}`);
    }
    expect([...bodies].sort()).toEqual([
      'create {"error":"task not created"}',
      'lookup {"error":"task not found"}',
      'release {"error":"task not found"}',
    ]);
    api.services.failpoints.release('after_begin');
    expect((await pending).status).toBe(200);
    expect((await lookup(settled)).status).toBe(200);
  });

  it('a 300-byte id from an unauthorized caller → 404, not 400', async () => {
    const r = await post({ workspace_id: ws.id, external_id: 'x'.repeat(300), title: 'T' }, otherToken);
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: 'task not created' });
  });

  it('a read-only token cannot create or release', async () => {
    const ext = uniq('ro-');
    await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    expect((await post({ workspace_id: ws.id, external_id: uniq('ro-'), title: 'T' }, readOnly)).status).toBe(404);
    expect((await release(ext, randomUUID(), readOnly)).status).toBe(404);
    expect((await lookup(ext, readOnly)).status).toBe(200);
  });
});

describe('REST release (SPEC §7)', () => {
  it('204, replay 204, key reuse with another id → 409 with code, missing key → 400', async () => {
    const ext = uniq('rel-');
    await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    const key = randomUUID();
    const r = await release(ext, key);
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await release(ext, key)).status).toBe(204);
    const conflict = await release(uniq('x-'), key);
    expect(conflict.status).toBe(409);
    expect(conflict.json).toEqual({
      error: 'idempotency key reused with a different request',
      code: 'idempotency_key_conflict',
    });
    expect((await release(ext, null)).status).toBe(400);
    expect((await release(ext, 'nope')).status).toBe(400);
    expect((await release('  ')).json).toEqual({ error: 'invalid external_id: external_id is required' });
  });

  it('release during completing → 409 creation_completing with code', async () => {
    const ext = uniq('cmp-');
    api.services.failpoints.arm({ name: 'complete_between_phases', action: 'pause', match: ext, times: 1 });
    const pending = post(withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'T' }));
    await expect.poll(() => api.services.failpoints.paused.get('complete_between_phases') ?? 0).toBe(1);
    const r = await release(ext);
    expect(r.status).toBe(409);
    expect(r.json).toEqual({ error: 'creation is completing; retry shortly', code: 'creation_completing' });
    api.services.failpoints.release('complete_between_phases');
    expect((await pending).status).toBe(200);
  });

  it('PATCH with external_id changes nothing about the identity but applies the title', async () => {
    const ext = uniq('patch-');
    const a = await post({ workspace_id: ws.id, external_id: ext, title: 'Before' });
    const id = (a.json as { id: string }).id;
    const p = await call(api.url, 'PATCH', `/api/v1/tasks/${id}`, {
      token,
      body: { title: 'After', external_id: 'other' },
    });
    expect(p.status).toBe(200);
    expect(p.json).toMatchObject({ title: 'After', external_id: ext });
  });

  it('archive keeps the identity; delete frees it (REST)', async () => {
    const ext = uniq('life-');
    const a = await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    const id = (a.json as { id: string }).id;
    expect((await call(api.url, 'POST', `/api/v1/tasks/${id}/archive`, { token })).status).toBe(200);
    const found = await post({ workspace_id: ws.id, external_id: ext });
    expect(found.json).toMatchObject({ id, deduplicated: true });
    expect((found.json as { archived_at: string | null }).archived_at).not.toBeNull();
    expect((await call(api.url, 'DELETE', `/api/v1/tasks/${id}`, { token })).status).toBe(204);
    const fresh = await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    expect(fresh.json).toMatchObject({ deduplicated: false });
    expect((fresh.json as { id: string }).id).not.toBe(id);
  });
});

describe('tRPC surface (SPEC §10)', () => {
  it('create accepts an identity envelope without a title on a Found retry, and byExternalId reports creation_complete', async () => {
    const ext = uniq('trpc-');
    const a = await trpc(
      api.url,
      'mutation',
      'task.create',
      { workspace_id: ws.id, external_id: ext, title: 'T' },
      token,
    );
    expect(a.status).toBe(200);
    const created = (a.json as { result: { data: { id: string; deduplicated: boolean } } }).result.data;
    expect(created.deduplicated).toBe(false);
    const b = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, external_id: ext }, token);
    expect((b.json as { result: { data: unknown } }).result.data).toMatchObject({
      id: created.id,
      deduplicated: true,
      creation_complete: true,
    });
    const l = await trpc(api.url, 'query', 'task.byExternalId', { workspace_id: ws.id, external_id: ext }, token);
    expect((l.json as { result: { data: unknown } }).result.data).toMatchObject({
      id: created.id,
      creation_complete: true,
    });
  });

  it('a miss without a title → BAD_REQUEST "title is required"', async () => {
    const r = await trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, external_id: uniq('t-') }, token);
    expect(r.status).toBe(400);
    expect((r.json as { error: { message: string } }).error.message).toBe('title is required');
  });

  it('unauthorized lookup → NOT_FOUND "task not found"; release via tRPC works with a key', async () => {
    const ext = uniq('trpc-rel-');
    await post({ workspace_id: ws.id, external_id: ext, title: 'T' });
    const denied = await trpc(
      api.url,
      'query',
      'task.byExternalId',
      { workspace_id: ws.id, external_id: ext },
      otherToken,
    );
    expect(denied.status).toBe(404);
    expect((denied.json as { error: { message: string } }).error.message).toBe('task not found');
    const rel = await trpc(
      api.url,
      'mutation',
      'task.releaseExternalId',
      { workspace_id: ws.id, external_id: ext, idempotency_key: randomUUID() },
      token,
    );
    expect((rel.json as { result: { data: unknown } }).result.data).toEqual({
      released: true,
      replayed: false,
      release_id: expect.any(String),
      holder_task_id: expect.any(String),
    });
  });

  it('unauthenticated → 401', async () => {
    const r = await trpc(api.url, 'query', 'task.list', { workspace_id: ws.id });
    expect(r.status).toBe(401);
  });
});
