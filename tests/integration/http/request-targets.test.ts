// Request targets that are not a path (RFC 9112 §3.2) are answered by the custom server before
// anything else sees them. On the built app Next answered `OPTIONS *` with a 500 (and a stack in the log: any client
// could fill it) and `GET http://evil.example/api/health` with a 308 to evil.example. The built-app half of this is
// in tests/integration/hostile/built-app-edges.test.ts; here the server runs without Next.
import { describe, expect, it } from 'vitest';
import { rawRequest, type TestApi, useApiWorld } from '../../support/http';

let api: TestApi;
useApiWorld((w) => ({ api } = w));

const host = () => new URL(api.url).host;
const send = (line: string, hostHeader = host()) =>
  rawRequest(api.url, `${line}\r\nHost: ${hostHeader}\r\nConnection: close\r\n\r\n`);

describe('asterisk-form (`*`)', () => {
  it('OPTIONS * is 204 with the methods the server answers to', async () => {
    const r = await send('OPTIONS * HTTP/1.1');
    expect(r.status).toBe(204);
    expect(r.headers.allow).toBe('GET, HEAD, POST, PATCH, DELETE, OPTIONS');
    expect(r.body).toBe('');
  });

  it.each(['GET', 'POST', 'DELETE'])('%s * is 400', async (method) => {
    const r = await send(`${method} * HTTP/1.1`);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toEqual({ error: 'invalid request target: * is only for OPTIONS' });
  });
});

describe('absolute-form (`http://host/path`)', () => {
  it('naming another host is 421 and never a redirect', async () => {
    for (const target of [
      'http://evil.example/api/health',
      'https://evil.example/',
      'http://evil.example',
      `http://evil.example@${host()}/api/health`,
    ]) {
      const r = await send(`GET ${target} HTTP/1.1`);
      expect([400, 421], target).toContain(r.status);
      expect(r.headers.location, target).toBeUndefined();
    }
    const r = await send('GET http://evil.example/api/health HTTP/1.1');
    expect(r.status).toBe(421);
    expect(JSON.parse(r.body)).toEqual({ error: 'misdirected request: this server does not answer for that host' });
  });

  it('naming this host (as the Host header does) is served as its path (RFC 9112 §3.2.2: servers accept it)', async () => {
    const r = await send(`GET http://${host()}/api/health HTTP/1.1`);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ready: true });
    const q = await send(`GET HTTP://${host().toUpperCase()}?x=1 HTTP/1.1`);
    expect(q.status).toBe(404); // `/`: not an API path, and this server runs without pages
  });

  it('is matched against the Host header (the server does not know its public name), exactly as origin-form is', async () => {
    const absolute = await send('GET http://other.example/api/health HTTP/1.1', 'other.example');
    const origin = await send('GET /api/health HTTP/1.1', 'other.example');
    expect(absolute.status).toBe(200);
    expect(absolute.status).toBe(origin.status);
    expect(absolute.headers.location).toBeUndefined();
  });
});
