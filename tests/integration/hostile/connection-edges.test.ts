// The HTTP edge under clients that do not behave like browsers, over raw sockets (docs/RELIABILITY.md):
// - a refusal given while a slow body still arrives (a 401 in front of an upload) is answered at once and closes the
//   connection as a 413 does, instead of holding it for the whole request timeout (it held it 30 s);
// - a client that sends its request and then half-closes (FIN) gets its answer: the create used to run and commit
//   with nobody able to receive the answer, on REST as on tRPC and MCP (which came first was luck).
import type { Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { LINGER_MS } from '../../../src/server/http/response';
import { count, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { type TestApi, useApiWorld } from '../../support/http';
import { answerComplete, openProbe, trickle } from '../../support/raw-connection';
import { tableCounts } from './hostile-support';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

useApiWorld((w) => ({ db, api, ws, token } = w));

const open = (start: (s: Socket) => void, allowHalfOpen = false) => openProbe(api.url, start, allowHalfOpen);

function head(path: string, headers: Record<string, string>): string {
  return `POST ${path} HTTP/1.1\r\nHost: tether.test\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
}

const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

/** "At once": a fraction of the linger (LINGER_MS) and of the 30 s request timeout that held these before, with room
 *  for a loaded test machine (a warm answer takes a few ms). */
const PROMPT_MS = LINGER_MS / 2;

describe('a refusal while a slow body still arrives is answered at once and closes the connection', () => {
  const PATHS = ['/api/v1/tasks', '/api/trpc/task.create', '/api/mcp'] as const;
  /** A create without credentials whose body arrives a byte every 200 ms: slow, never silent, never done. */
  const slowUnauthenticated = (path: string, allowHalfOpen: boolean) =>
    open((s) => {
      s.write(
        `${head(path, { 'content-type': 'application/json', 'content-length': '100000', ...(path === '/api/mcp' ? MCP_ACCEPT : {}) })}{"title":"`,
      );
      trickle(s, () => 'x');
    }, allowHalfOpen);

  beforeAll(async () => {
    // Each surface answers once before it is timed, so the first request's start-up costs are not counted.
    for (const path of PATHS)
      await fetch(api.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...MCP_ACCEPT },
        body: '{}',
      });
  });

  it("401 on REST, tRPC and MCP: the whole answer and the server's FIN at once, not after the request timeout", async () => {
    const probes = await Promise.all(PATHS.map((path) => slowUnauthenticated(path, false)));
    await until(() => probes.every((p) => p.closedAfter !== undefined), 5_000, 'every connection closed');
    for (const p of probes) {
      expect(p.received).toMatch(/^HTTP\/1\.1 401 /);
      expect(p.answeredAfter!).toBeLessThan(PROMPT_MS); // a chunked tRPC answer included: its last chunk is not held back
      expect(p.endedAfter!).toBeLessThan(PROMPT_MS);
    }
  });

  it('a client that goes on sending after the FIN is cut off after the linger (LINGER_MS), not the request timeout (30 s)', async () => {
    const probes = await Promise.all(PATHS.map((path) => slowUnauthenticated(path, true)));
    await until(() => probes.every((p) => p.closedAfter !== undefined), LINGER_MS + 5_000, 'every connection closed');
    for (const p of probes) {
      expect(p.answeredAfter!).toBeLessThan(PROMPT_MS);
      expect(p.endedAfter!).toBeLessThan(PROMPT_MS);
      // Until then what it sends is read and dropped, so the answer it has not read yet is not lost to a reset.
      expect(p.closedAfter!).toBeGreaterThanOrEqual(LINGER_MS - 100);
      expect(p.closedAfter!).toBeLessThan(LINGER_MS + 3_000);
    }
  }, 20_000);
});

describe('a client that half-closes after sending its request gets the answer', () => {
  const surfaces = [
    ['REST', '/api/v1/tasks', (ext: string) => ({ workspace_id: ws.id, external_id: ext, title: 'half-closed' }), {}],
    [
      'tRPC',
      '/api/trpc/task.create',
      (ext: string) => ({ workspace_id: ws.id, external_id: ext, title: 'half-closed' }),
      {},
    ],
    [
      'MCP',
      '/api/mcp',
      (ext: string) => ({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_task', arguments: { workspace_id: ws.id, external_id: ext, title: 'half-closed' } },
      }),
      MCP_ACCEPT,
    ],
  ] as const;

  for (const [surface, path, body, extra] of surfaces) {
    it(`${surface}: the FIN arrives while the create runs; the create's answer still reaches the client`, async () => {
      const ext = uniq(`half-${surface}-`);
      const text = JSON.stringify(body(ext));
      // The create waits at Begin until the server has surely seen the FIN, so the order is not left to luck.
      api.services.failpoints.arm({ name: 'before_begin', action: 'pause', match: ext, times: 1 });
      try {
        const probe = await open((s) =>
          s.end(
            head(path, {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(text)),
              ...extra,
            }) + text,
          ),
        );
        await until(
          () => (api.services.failpoints.paused.get('before_begin') ?? 0) === 1,
          10_000,
          'the create paused at Begin',
        );
        await new Promise((r) => setTimeout(r, 300)); // the FIN is read long before this
        api.services.failpoints.release('before_begin');
        await until(() => probe.closedAfter !== undefined, 10_000, 'the server closing the half-closed connection');
        expect(probe.received).toMatch(/^HTTP\/1\.1 200 /);
        expect(answerComplete(probe.received)).toBe(true);
        expect(probe.received).toContain(ext); // the create's own answer (MCP carries the task as text, JSON inside JSON)
        expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
      } finally {
        api.services.failpoints.release('before_begin');
      }
    });
  }

  it('a half-closed connection with an unfinished body is refused, and nothing is written', async () => {
    const before = await tableCounts(db);
    const probe = await open((s) =>
      s.end(
        `${head('/api/v1/tasks', { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': '500' })}{"title":"x"`,
      ),
    );
    await until(() => probe.closedAfter !== undefined, 10_000, 'the server closing the connection');
    expect(probe.received).not.toMatch(/^HTTP\/1\.1 2/);
    expect(await tableCounts(db)).toEqual(before);
  });

  it('a live event stream (REST, tRPC) ends when its client half-closes: it would otherwise never finish', async () => {
    const input = encodeURIComponent(JSON.stringify({ workspace_id: ws.id }));
    for (const [path, started] of [
      [`/api/v1/workspaces/${ws.id}/events/stream`, 'retry: 2000'],
      [`/api/trpc/event.onEvent?input=${input}`, 'event: connected'],
    ] as const) {
      const probe = await open((s) =>
        s.write(
          `GET ${path} HTTP/1.1\r\nHost: tether.test\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`,
        ),
      );
      await until(() => probe.received.includes(started), 10_000, 'the stream to start');
      probe.socket.end();
      await until(() => probe.closedAfter !== undefined, 5_000, `the server ending ${path}`);
      expect(probe.received).toMatch(/^HTTP\/1\.1 200 /);
    }
  });
});
