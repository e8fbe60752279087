// SPEC §11 (cookie-authenticated mutations are CSRF-protected) and SPEC §12 (identity answers 503 until attested),
// at the real HTTP edges.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, SESSION_COOKIE } from '../../../src/server/auth/session';
import type { Db } from '../../../src/server/db/types';
import { createUser } from '../../../src/server/domain/users/create-user';
import { call, makeToken, startTestApi, type TestApi } from '../../support/http';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { freshDb } from '../../support/db';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  const user = await createUser(api.services.store, {
    email: `${uniq('op')}@example.com`,
    password: 'correct horse battery',
    role: 'operator',
    workspaceIds: [ws.id],
  });
  const session = await createSession(api.services.store, user.id);
  cookie = `${SESSION_COOKIE}=${session.cookieValue}`;
  csrf = session.csrfToken;
});
afterAll(async () => {
  await api.close();
  await db.close();
});

const create = (headers: Record<string, string>) =>
  call(api.url, 'POST', '/api/v1/tasks', {
    headers: { cookie, ...headers },
    body: { workspace_id: ws.id, external_id: uniq('c-'), title: 'T' },
  });

describe('cookie-authenticated mutations (SPEC §11)', () => {
  it('are refused without the CSRF token, and nothing is written', async () => {
    const before = await count(db, 'SELECT COUNT(*) AS n FROM tasks');
    const r = await create({});
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: 'cross-site request refused' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks')).toBe(before);
  });

  it('are refused from a foreign Origin even with the token (a cross-site form post)', async () => {
    const r = await create({ 'x-csrf-token': csrf, origin: 'https://evil.example' });
    expect(r.status).toBe(403);
  });

  it('succeed with the token from the same origin', async () => {
    const host = new URL(api.url).host;
    const r = await create({ 'x-csrf-token': csrf, origin: `http://${host}` });
    expect(r.status).toBe(200);
  });

  it('reads need no CSRF token', async () => {
    const r = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks`, { headers: { cookie } });
    expect(r.status).toBe(200);
  });

  it('tRPC mutations over a cookie need the token too', async () => {
    const r = await call(api.url, 'POST', '/api/trpc/task.create', {
      headers: { cookie },
      body: { workspace_id: ws.id, title: 'T' },
    });
    expect(r.status).toBe(403);
  });
});

describe('identity readiness gate (SPEC §12)', () => {
  it('answers 503 with the reason for identity reads and writes until attestation passes; creates without an identity keep working', async () => {
    const token = await makeToken(db, [ws.id]);
    await db.exec('DROP INDEX uniq_tasks_external_id');
    try {
      await api.services.readiness.refresh(db);
      const withId = await call(api.url, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, external_id: 'x', title: 'T' },
      });
      expect(withId.status).toBe(503);
      expect((withId.json as { error: string }).error).toMatch(/uniq_tasks_external_id/);
      const look = await call(api.url, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=x`, {
        token,
      });
      expect(look.status).toBe(503);
      const without = await call(api.url, 'POST', '/api/v1/tasks', {
        token,
        body: { workspace_id: ws.id, title: 'T' },
      });
      expect(without.status).toBe(200);
      const health = await call(api.url, 'GET', '/api/health');
      expect(health.status).toBe(503);
      expect(health.json).toMatchObject({ ready: false });
    } finally {
      await db.exec(
        db.dialect === 'postgres'
          ? 'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE "C") WHERE external_id IS NOT NULL'
          : 'CREATE UNIQUE INDEX uniq_tasks_external_id ON tasks (workspace_id, external_id COLLATE BINARY) WHERE external_id IS NOT NULL',
      );
      await api.services.readiness.refresh(db);
    }
    const again = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: 'x', title: 'T' },
    });
    expect(again.status).toBe(200);
  });
});
