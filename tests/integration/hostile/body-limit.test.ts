// Request bodies have a size limit (TETHER_MAX_BODY_BYTES, default 1 MiB) on every surface
// → 413 with a clear message, nothing written, whether the size is declared up front or streamed (chunked).
import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { uniq, type TestWorkspace } from '../../support/fixtures';
import { call, type TestApi, useApiWorld } from '../../support/http';
import { checkRestResponse, parseRawResponse } from '../../support/openapi-check';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

useApiWorld((w) => ({ db, api, ws, token } = w));

/** A syntactically valid create whose description pushes it past 1 MiB. */
const oversized = () =>
  JSON.stringify({
    workspace_id: ws.id,
    external_id: uniq('big-'),
    title: 'T',
    description: 'x'.repeat(1024 * 1024 + 10),
  });

/** Streams `body` in 64 KiB chunks without a Content-Length (Transfer-Encoding: chunked). */
function postChunked(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(api.url + path);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += String(d)));
        res.on('end', () => {
          const headers = new Headers(Object.entries(res.headers).map(([k, v]): [string, string] => [k, String(v)]));
          checkRestResponse('POST', path, { status: res.statusCode ?? 0, headers, text });
          resolve({ status: res.statusCode ?? 0, text });
        });
      },
    );
    // The server may close the socket after answering 413 while we still write: that is expected.
    req.on('error', (err) =>
      String(err).includes('EPIPE') || String(err).includes('ECONNRESET') ? undefined : reject(err),
    );
    const buf = Buffer.from(body);
    for (let i = 0; i < buf.length; i += 65536) req.write(buf.subarray(i, i + 65536));
    req.end();
  });
}

/**
 * A client that sends its whole request before it reads anything (as most simple HTTP clients do): `prefix`, then
 * `total` bytes of `x`, chunked (or with the given Content-Length), with backpressure but with reading paused; only
 * then does it read the answer. A connection the server closed while the body was still arriving fails the write
 * (EPIPE / ECONNRESET) and throws the unread answer away — what such a client saw instead of the 413.
 */
function sendAllThenRead(
  path: string,
  total: number,
  headers: Record<string, string> = {},
  prefix = '{"title":"',
): Promise<{ status: number; text: string }> {
  const u = new URL(api.url);
  const chunked = headers['content-length'] === undefined;
  const head =
    `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${token}\r\n` +
    Object.entries({ 'content-type': 'application/json', ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    (chunked ? 'Transfer-Encoding: chunked\r\n' : '') +
    'Connection: close\r\n\r\n';
  const piece = Buffer.alloc(64 * 1024, 'x');
  const frame = (b: Buffer) =>
    chunked ? Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]) : b;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname);
    socket.pause(); // read nothing until the request is sent
    socket.on('error', reject);
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        checkRestResponse('POST', path, parseRawResponse(text));
      } catch (err) {
        reject(err);
      }
      resolve({ status: Number(text.split(' ')[1] ?? 0), text });
    });
    socket.once('connect', async () => {
      const write = (b: Buffer) => new Promise<void>((ok) => (socket.write(b) ? ok() : socket.once('drain', ok)));
      await write(Buffer.concat([Buffer.from(head), frame(Buffer.from(prefix))]));
      for (let sent = 0; sent < total && !socket.destroyed; sent += piece.length) await write(frame(piece));
      if (chunked && !socket.destroyed) await write(Buffer.from('0\r\n\r\n'));
      socket.resume();
    });
  });
}

describe('a 413 reaches a client that is still sending (not a connection closed first, which the client saw as EPIPE)', () => {
  for (const [surface, path] of [
    ['REST', '/api/v1/tasks'],
    ['tRPC', '/api/trpc/task.create'],
    ['MCP', '/api/mcp'],
  ] as const) {
    it(`${surface}: a 10 MB chunked body gets its 413 (and nothing is written)`, async () => {
      const before = await tableCounts(db);
      const headers: Record<string, string> =
        surface === 'MCP' ? { accept: 'application/json, text/event-stream' } : {};
      const r = await sendAllThenRead(path, 10 * 1024 * 1024, headers);
      expect(r.status).toBe(413);
      expect(r.text).toContain('request body too large');
      expect(await tableCounts(db)).toEqual(before);
    });
  }

  it('REST: a 10 MB body with a Content-Length over the limit gets its 413 too', async () => {
    const r = await sendAllThenRead('/api/v1/tasks', 10 * 1024 * 1024, {
      'content-length': String(10 * 1024 * 1024 + 10),
    });
    expect(r.status).toBe(413);
  });

  it('attachments: an upload over TETHER_ATTACHMENT_MAX_BYTES gets its 413', async () => {
    const part = `--x\r\nContent-Disposition: form-data; name="workspace_id"\r\n\r\n${ws.id}\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`;
    const r = await sendAllThenRead(
      '/api/v1/attachments',
      16 * 1024 * 1024,
      { 'content-type': 'multipart/form-data; boundary=x' },
      part,
    );
    expect(r.status).toBe(413);
    expect(r.text).toContain('{"error":"request body too large"}');
  });
});

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
