// /api/metrics in the Prometheus text format, admins only. A scripted mix of calls on REST, tRPC
// and MCP against a fresh server must show exactly the expected counts; the docs must list every metric.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { createServices } from '../../../src/server/create-services';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq, until, withPlannedStep, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type TestApi } from '../../support/http';
import { connectMcp, type McpTestClient } from '../mcp/mcp-client';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
let adminToken: string;
let mcp: McpTestClient;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  adminToken = await makeToken(db, [ws.id], ['admin']);
  mcp = await connectMcp(api.url, token);
});
afterAll(async () => {
  await mcp?.close();
  await api?.close();
  await db?.close();
});

/** `name{a="x",b="y"}` → value, for every sample line of an exposition. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

async function scrape(): Promise<{ text: string; at: Map<string, number> }> {
  const r = await call(api.url, 'GET', '/api/metrics', { token: adminToken });
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: r.text, at: samples(r.text) };
}

const rest = (body: Record<string, unknown>) =>
  call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title: 't', ...body } });
const viaTrpc = (body: Record<string, unknown>) =>
  trpc(api.url, 'mutation', 'task.create', { workspace_id: ws.id, title: 't', ...body }, token);
const release = (ext: string, key: string = randomUUID()) =>
  call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${encodeURIComponent(ext)}`, {
    token,
    headers: { 'idempotency-key': key },
  });

describe('GET /api/metrics', () => {
  it('refuses a scrape without a credential (401) and one that is not an admin (403)', async () => {
    const anonymous = await call(api.url, 'GET', '/api/metrics');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual({ error: 'authentication required' });
    expect(anonymous.text).not.toContain('tether_');
    const member = await call(api.url, 'GET', '/api/metrics', { token });
    expect(member.status).toBe(403);
    expect(member.text).not.toContain('tether_');
  });

  it('after a scripted mix of calls shows exactly the expected counts', async () => {
    const [a, b, c] = [uniq('m-a-'), uniq('m-b-'), uniq('m-c-')];
    // REST: Created, FoundSettled ×2; a 400 and a 404.
    expect((await rest({ external_id: a })).status).toBe(200);
    expect((await rest({ external_id: a })).json).toMatchObject({ deduplicated: true });
    expect((await rest({ external_id: a, title: 'drifted' })).json).toMatchObject({ deduplicated: true });
    expect((await call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: '{"title":' })).status).toBe(400);
    expect((await call(api.url, 'GET', `/api/v1/tasks/${randomUUID()}`, { token })).status).toBe(404);
    // tRPC: Created, FoundSettled.
    expect((await viaTrpc({ external_id: b })).status).toBe(200);
    expect((await viaTrpc({ external_id: b })).status).toBe(200);
    // MCP: Created, FoundSettled, and a tool error (no title for a new task).
    expect((await mcp.call('create_task', { workspace_id: ws.id, external_id: c, title: 't' })).isError).toBe(false);
    expect((await mcp.call('create_task', { workspace_id: ws.id, external_id: c })).json).toMatchObject({
      deduplicated: true,
    });
    expect((await mcp.call('create_task', { workspace_id: ws.id, external_id: uniq('m-none-') })).isError).toBe(true);
    // FoundUnsettled and CreatedIdentityLost on REST: a create held after Begin, retried, then released meanwhile.
    // It plans a step: a zero-step create is one commit (SPEC §4.3) and never reaches `after_begin`.
    const held = uniq('m-held-');
    api.services.failpoints.arm({ name: 'after_begin', action: 'pause', match: held, times: 1 });
    const pending = rest(withPlannedStep({ external_id: held }));
    await until(() => (api.services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'the paused create');
    expect((await rest({ external_id: held })).json).toMatchObject({ deduplicated: true, creation_complete: false });
    const key = randomUUID();
    expect((await release(held, key)).status).toBe(204);
    api.services.failpoints.release('after_begin');
    expect((await pending).json).toMatchObject({ deduplicated: false, creation_complete: true });
    expect((await pending).json).not.toHaveProperty('external_id');
    // Releases: released (above), replayed, not found, key conflict.
    expect((await release(held, key)).status).toBe(204);
    expect((await release(uniq('m-nothing-'))).status).toBe(404);
    expect((await release(a, key)).status).toBe(409);

    const { at } = await scrape();
    const creates = (surface: string, outcome: string) =>
      at.get(`tether_creates_total{surface="${surface}",outcome="${outcome}"}`) ?? 0;
    expect([
      creates('rest', 'Created'),
      creates('rest', 'FoundSettled'),
      creates('rest', 'FoundUnsettled'),
      creates('rest', 'CreatedIdentityLost'),
    ]).toEqual([1, 2, 1, 1]);
    expect([creates('trpc', 'Created'), creates('trpc', 'FoundSettled')]).toEqual([1, 1]);
    expect([creates('mcp', 'Created'), creates('mcp', 'FoundSettled')]).toEqual([1, 1]);
    expect(at.get('tether_releases_total{result="released",replayed="false"}')).toBe(1);
    expect(at.get('tether_releases_total{result="released",replayed="true"}')).toBe(1);
    expect(at.get('tether_releases_total{result="not_found",replayed="false"}')).toBe(1);
    expect(at.get('tether_releases_total{result="idempotency_key_conflict",replayed="false"}')).toBe(1);
    expect(at.get('tether_errors_total{code="invalid_payload",surface="rest"}')).toBe(1);
    // The GET; a release that nothing held is a stored result (tether_releases_total{result="not_found"}), not an error.
    expect(at.get('tether_errors_total{code="task_not_found",surface="rest"}')).toBe(1);
    expect(at.get('tether_errors_total{code="idempotency_key_conflict",surface="rest"}')).toBe(1);
    expect(at.get('tether_errors_total{code="title_required",surface="mcp"}')).toBe(1);
    // Latency by route pattern: five REST creates answered 2xx, one 400; two tRPC creates.
    expect(at.get('tether_http_request_duration_seconds_count{route="/api/v1/tasks",method="POST",status="2xx"}')).toBe(
      5,
    );
    expect(at.get('tether_http_request_duration_seconds_count{route="/api/v1/tasks",method="POST",status="4xx"}')).toBe(
      1,
    );
    expect(
      at.get('tether_http_request_duration_seconds_count{route="/api/v1/tasks/:id",method="GET",status="4xx"}'),
    ).toBe(1);
    expect(
      at.get('tether_http_request_duration_seconds_count{route="/api/trpc/task.create",method="POST",status="2xx"}'),
    ).toBe(2);
    expect(
      at.get(
        'tether_http_request_duration_seconds_count{route="/api/v1/workspaces/:workspace_id/tasks/by-external-id",method="DELETE",status="2xx"}',
      ),
    ).toBe(2);
    expect([...at.keys()].some((k) => k.includes(ws.id) || k.includes(a))).toBe(false); // no ids or external ids in labels
    // Scrape-time gauges.
    expect(at.get('tether_identity_ready')).toBe(1);
    expect(at.get('tether_identities_unsettled')).toBe(0);
    expect(at.get('tether_identities_unsettled_oldest_age_seconds')).toBe(0);
    expect(at.get('tether_cleanup_pending')).toBe(0);
    expect(at.get('tether_cleanup_failing')).toBe(0);
    expect(at.get('tether_db_pool_max')).toBeGreaterThanOrEqual(1);
    expect(at.has('tether_db_pool_connections{state="waiting"}')).toBe(true);
    expect(at.get('tether_relay_lag_events')).toBeGreaterThanOrEqual(0);
    expect(at.get('tether_recovery_takeovers_total')).toBe(0);
  });

  it('shows an unsettled identity and its age while a create is in flight', async () => {
    const held = uniq('m-flight-');
    api.services.failpoints.arm({ name: 'after_begin', action: 'pause', match: held, times: 1 });
    const pending = rest(withPlannedStep({ external_id: held }));
    await until(() => (api.services.failpoints.paused.get('after_begin') ?? 0) === 1, 10_000, 'the paused create');
    await new Promise((r) => setTimeout(r, 50));
    const { at } = await scrape();
    expect(at.get('tether_identities_unsettled')).toBe(1);
    expect(at.get('tether_identities_unsettled_oldest_age_seconds')).toBeGreaterThan(0);
    api.services.failpoints.release('after_begin');
    expect((await pending).status).toBe(200);
  });

  it('counts per Services: another Services in the same process starts from zero', async () => {
    const other = createServices({ db, config: api.services.config });
    const text = await other.metrics.registry.metrics();
    expect(samples(text).get('tether_creates_total{surface="rest",outcome="Created"}')).toBeUndefined();
    expect(other.metrics.registry).not.toBe(api.services.metrics.registry);
  });

  it('the docs list every metric the endpoint serves, and nothing else', async () => {
    const { text } = await scrape();
    const served = [...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!).sort();
    const doc = readFileSync('docs/METRICS.md', 'utf8');
    const documented = [...new Set([...doc.matchAll(/^\| `(tether_[a-z_]+)` \|/gm)].map((m) => m[1]!))].sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
  });
});
