// Issue 9 item 1: request bodies have a size limit (TETHER_MAX_BODY_BYTES, default 1 MiB) on every surface
// → 413 with a clear message, nothing written, whether the size is declared up front or streamed (chunked).
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, type TestApi, useApiWorld } from '../../support/http';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

useApiWorld((w) => ({ db, api, ws, token } = w));

/** A syntactically valid create whose description pushes it past 1 MiB. */
const oversized = () => JSON.stringify({ workspace_id: ws.id, external_id: uniq('big-'), title: 'T', description: 'x'.repeat(1024 * 1024 + 10) });

/** Streams `body` in 64 KiB chunks without a Content-Length (Transfer-Encoding: chunked). */
function postChunked(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(api.url + path);
    const req = request(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    // The server may close the socket after answering 413 while we still write: that is expected.
    req.on('error', (err) => (String(err).includes('EPIPE') || String(err).includes('ECONNRESET') ? undefined : reject(err)));
    const buf = Buffer.from(body);
    for (let i = 0; i < buf.length; i += 65536) req.write(buf.subarray(i, i + 65536));
    req.end();
  });
}

describe('body size limit', () => {
  it('REST: an oversized body is 413 "request body too large" and writes nothing', async () => {
    const before = await tableCounts(db);
    const r = await call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: oversized() });
    expect(r.status).toBe(413);
    expect(r.json).toEqual({ error: 'request body too large' });
    expect(await tableCounts(db)).toEqual(before);
  });

  it('REST: a chunked body without Content-Length is cut off at the limit with the same 413', async () => {
    const before = await tableCounts(db);
    const r = await postChunked('/api/v1/tasks', oversized());
    expect(r.status).toBe(413);
    expect(JSON.parse(r.text)).toEqual({ error: 'request body too large' });
    expect(await tableCounts(db)).toEqual(before);
  });

  it('REST: a body just under the limit is read (and refused only on its merits)', async () => {
    const body = JSON.stringify({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(1024 * 1024 - 200) });
    const r = await call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: body });
    // 100,000 characters is the description's own limit: a validation 400, not a 413.
    expect(r.status).toBe(400);
    expect((r.json as { error: string }).error).toMatch(/^invalid request: description/);
  });

  it('tRPC: an oversized mutation body is 413 with the same words, and writes nothing', async () => {
    const before = await tableCounts(db);
    const r = await call(api.url, 'POST', '/api/trpc/task.create', { token, rawBody: oversized() });
    expect(r.status).toBe(413);
    expect((r.json as { error: { message: string } }).error.message).toBe('request body too large');
    expect(await tableCounts(db)).toEqual(before);
  });

  it('tRPC: a chunked oversized body is 413 too', async () => {
    const r = await postChunked('/api/trpc/task.create', oversized());
    expect(r.status).toBe(413);
    expect(r.text).toContain('request body too large');
  });
});
