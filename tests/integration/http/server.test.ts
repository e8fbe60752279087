// The custom server's own routes, on both dialects: health (SPEC §12), the API 404, the test hooks.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../../src/server/app';
import { startServer, type RunningServer } from '../../../src/server/main';
import { Failpoints } from '../../../src/server/failpoints';
import { Readiness } from '../../../src/server/readiness';
import { freshDb, testDialect } from '../../support/db';
import { testServices } from '../../support/fixtures';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the started server (startServer, API only)', () => {
  let running: RunningServer;
  beforeAll(async () => {
    const services = await testServices(await freshDb());
    running = await startServer({ services, pages: false, port: 0, host: '127.0.0.1', log: () => {} });
  });
  afterAll(async () => running?.close());

  it('answers GET /api/health with 200 and the ready body on an attested schema', async () => {
    const res = await fetch(`${running.url}/api/health`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'ok', ready: true, dialect: testDialect(), database: 'up' });
    expect(body.migration_version).toBeGreaterThanOrEqual(1);
    expect(body.attestation).toMatchObject({ ready: true, reasons: [], legacy: [] });
  });

  it('sends X-Content-Type-Options: nosniff on API responses', async () => {
    const res = await fetch(`${running.url}/api/health`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers an unknown /api path with a JSON 404 instead of a page', async () => {
    const res = await fetch(`${running.url}/api/no-such-thing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not found' });
  });

  it('arms, lists and releases failpoints through /api/_test/failpoints when enabled', async () => {
    const post = (body: unknown) =>
      fetch(`${running.url}/api/_test/failpoints`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const armed = await post({ arm: { name: 'begin.after_insert', action: 'pause', match: 'ext-1' } });
    expect(armed.status).toBe(200);
    expect((await armed.json()).failpoints).toMatchObject([
      { name: 'begin.after_insert', action: 'pause', match: 'ext-1' },
    ]);
    expect(running.services.failpoints.list()).toHaveLength(1);
    await post({ releaseAll: true });
    expect(running.services.failpoints.list()).toEqual([]);
  });

  it('refuses a failpoint command that is not one of the three shapes with 400', async () => {
    const res = await fetch(`${running.url}/api/_test/failpoints`, {
      method: 'POST',
      body: JSON.stringify({ arm: { name: 'x' } }),
    });
    expect(res.status).toBe(400);
  });
});

describe('the server before attestation passes, with failpoints disabled', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const db = await freshDb();
    // A Readiness that has not run: not ready, with its reason (SPEC §12).
    const services = await testServices(db, { failpoints: new Failpoints(false) });
    services.readiness = new Readiness();
    server = createHttpServer(services);
    url = await listen(server);
  });
  afterAll(async () => new Promise<void>((ok) => server.close(() => ok())));

  it('answers GET /api/health with 503 and the reasons while not ready', async () => {
    const res = await fetch(`${url}/api/health`);
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body).toMatchObject({ status: 'degraded', ready: false, attestation: { ready: false } });
    expect(body.attestation.reasons).toEqual(['attestation has not run yet']);
  });

  it('does not mount /api/_test/failpoints when failpoints are disabled', async () => {
    const res = await fetch(`${url}/api/_test/failpoints`);
    expect(res.status).toBe(404);
  });
});
