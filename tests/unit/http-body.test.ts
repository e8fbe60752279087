// readJsonBody / sendError (src/server/http/body.ts) over a real socket: limits, bad JSON, error mapping.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonBody, refuseMalformedQuery, sendError, sendJson } from '../../src/server/http/body';
import { RequestScope } from '../../src/server/observability/request-scope';

let server: Server;
let url: string;
let nextError: unknown;

beforeAll(async () => {
  server = createServer((req, res) => {
    const work = async () => {
      if (req.url === '/throw') throw nextError;
      sendJson(res, 200, { got: await readJsonBody(req, 64) });
    };
    work().catch((err: unknown) => sendError(res, err, { requests: new RequestScope() }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((ok) => server.close(() => ok())));

const post = (body: string | Uint8Array<ArrayBuffer>, path = '/') => fetch(`${url}${path}`, { method: 'POST', body });

describe('readJsonBody', () => {
  it('returns the parsed body within the limit', async () => {
    const res = await post('{"external_id":"ext-1"}');
    expect(await res.json()).toEqual({ got: { external_id: 'ext-1' } });
  });

  it('answers 413 request body too large above the limit', async () => {
    const res = await post(JSON.stringify({ title: 'x'.repeat(100) }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: 'request body too large' });
  });

  it('answers 400 invalid payload for malformed JSON (SPEC §4.1 step 1)', async () => {
    const res = await post('{"title":');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid payload' });
  });

  it('answers 400 invalid payload for an empty body', async () => {
    const res = await post('');
    expect(res.status).toBe(400);
  });

  it('refuses bytes that are not UTF-8 instead of replacing them (SPEC §2.1 byte-for-byte)', async () => {
    const res = await post(new Uint8Array([0x22, 0xff, 0x22]));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid payload' });
  });
});

describe('sendError', () => {
  it('turns an unknown error into a generic 500 with no internal detail', async () => {
    nextError = new Error('secret stack detail');
    const original = console.error;
    console.error = () => {};
    try {
      const res = await post('{}', '/throw');
      expect(res.status).toBe(500);
      expect(await res.text()).toBe('{"error":"internal error"}');
    } finally {
      console.error = original;
    }
  });

  it('turns an unreachable database into 503 database unavailable', async () => {
    nextError = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const res = await post('{}', '/throw');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.text()).toBe('{"error":"database unavailable"}');
  });
});

describe('refuseMalformedQuery (URLSearchParams turns bad escapes into U+FFFD)', () => {
  it.each([
    '/x?external_id=a-%FF',
    '/x?a=1&external_id=%C0%80',
    '/x?e=%ED%A0%80',
    '/x?e=%E2%82',
    '/x?e=%F4%90%80%80',
    '/x?e=%80',
  ])('refuses %s with 400 invalid payload', (url) => {
    expect(() => refuseMalformedQuery(url)).toThrow('invalid payload: the query string is not valid UTF-8');
  });

  it.each([
    '/x',
    '/x?',
    '/x?external_id=a-%EF%BF%BD',
    '/x?e=%E2%80%AE%F0%9F%98%80',
    '/x?e=100%25',
    '/x?e=%zz&f=%',
    '/x?e=caf%C3%A9',
  ])('lets %s through (well-formed UTF-8, or escapes that are not escapes)', (url) => {
    expect(() => refuseMalformedQuery(url)).not.toThrow();
  });
});
