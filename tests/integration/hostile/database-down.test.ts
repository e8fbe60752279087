// SPEC §4.4 and §12 over HTTP, on both dialects: the database is lost under load (PostgreSQL: Tether's connections
// terminated and refused; SQLite: a full disk — what `chattr +i` on the files showed as 820 × 500 `internal error`
// while /api/health said 200 ready, `database: up` all along). Every surface answers 503 `{"error":"database
// unavailable"}` with `Retry-After` (REST, tRPC, MCP, the SSE stream), never a 500; health turns not ready with
// `database: down` on its first answer after the loss and ready again once the database is back; nothing is
// aborted, every acknowledged id is held by its task, and recovery completes what was in flight.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/server/config';
import { isDatabaseUnavailable } from '../../../src/server/db/errors';
import { toDomainError } from '../../../src/server/domain/errors/domain-error';
import { faultableDatabase, type FaultableDatabase } from '../../support/database-fault';
import { testDialect } from '../../support/db';
import { count, makeWorkspace, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, startTestApi, trpc, type CallResult, type TestApi } from '../../support/http';
import { checkRestResponse } from '../../support/openapi-check';

const UNAVAILABLE = '{"error":"database unavailable"}';

let fault: FaultableDatabase;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

beforeAll(async () => {
  fault = await faultableDatabase();
  const config = loadConfig();
  api = await startTestApi(fault.db, {
    leaseMs: 600,
    config: { ...config, recovery: { enabled: true, pollMs: 100 }, relay: { enabled: true, pollMs: 50 } },
  });
  // A working-folder root: every create plans a step, so an outage can land between Begin and Complete.
  ws = await makeWorkspace(fault.db, { rootPath: mkdtempSync(join(tmpdir(), 'tether-root-')) });
  token = await makeToken(fault.db, [ws.id], ['tasks:read', 'tasks:write', 'identities:release', 'admin']);
});
afterAll(async () => {
  await api?.close();
  await fault?.close();
});

interface Health {
  http: number;
  ready: boolean;
  database: string;
}

async function health(): Promise<Health> {
  const res = await fetch(`${api.url}/api/health`);
  const body = (await res.json()) as { ready: boolean; database: string };
  return { http: res.status, ready: body.ready, database: body.database };
}

type Surface = 'rest' | 'trpc' | 'mcp';

interface Answer {
  surface: Surface;
  externalId: string;
  status: number;
  /** The error's words (REST body, tRPC message, MCP tool error text), or undefined on success. */
  error?: string;
  retryAfter: string | null;
  taskId?: string;
}

async function create(surface: Surface, externalId: string): Promise<Answer> {
  const input = { workspace_id: ws.id, external_id: externalId, title: `Outage ${externalId}` };
  if (surface === 'rest') {
    const r = await call(api.url, 'POST', '/api/v1/tasks', { token, body: input });
    return answer(surface, externalId, r, r.status === 200 ? undefined : r.text, (r.json as { id?: string }).id);
  }
  if (surface === 'trpc') {
    const r = await trpc(api.url, 'mutation', 'task.create', input, token);
    const json = r.json as { result?: { data: { id: string } }; error?: { message: string } };
    return answer(surface, externalId, r, json.error?.message, json.result?.data.id);
  }
  const res = await fetch(`${api.url}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_task', arguments: input },
    }),
  });
  const text = await res.text();
  const r: CallResult = { status: res.status, text, json: JSON.parse(text), headers: res.headers };
  // Refused before the tool ran (authentication met the outage): the HTTP answer is REST's.
  if (res.status !== 200) return answer(surface, externalId, r, text);
  const result = (
    r.json as { result: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: { id: string } } }
  ).result;
  return answer(
    surface,
    externalId,
    r,
    result.isError ? result.content.at(-1)!.text : undefined,
    result.structuredContent?.id,
  );
}

function answer(
  surface: Surface,
  externalId: string,
  r: CallResult,
  error: string | undefined,
  taskId?: string,
): Answer {
  return { surface, externalId, status: r.status, error, retryAfter: r.headers.get('retry-after'), taskId };
}

/** The outage's answer on each surface, with its Retry-After. */
function isOutageAnswer(a: Answer): boolean {
  if (a.surface === 'mcp' && a.status === 200)
    return a.error === '{"error":"database unavailable","code":"unavailable"}';
  const words = a.surface === 'trpc' ? 'database unavailable' : UNAVAILABLE;
  return a.status === 503 && a.error === words && a.retryAfter === '1';
}

/**
 * A live stream opened while the database is lost: PostgreSQL's relay cannot read the outbox, so the stream cannot
 * start — 503 like every surface. A full SQLite disk still serves reads: the relay reads on, and the stream opens.
 */
async function expectStreamWhileLost(): Promise<void> {
  const path = `/api/v1/workspaces/${ws.id}/events/stream`;
  const open = async () => {
    const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } });
    const text = res.status === 200 ? (await res.body?.cancel(), '') : await res.text();
    checkRestResponse('GET', path, { status: res.status, headers: res.headers, text });
    return { status: res.status, text, retryAfter: res.headers.get('retry-after') };
  };
  if (testDialect() === 'sqlite') {
    expect((await open()).status).toBe(200);
    return;
  }
  let last = await open();
  await until(
    async () => (last = await open()).status === 503,
    5_000,
    'a stream opened during the outage to answer 503',
  );
  expect(last).toEqual({ status: 503, text: UNAVAILABLE, retryAfter: '1' });
}

describe('the database lost under load (SPEC §4.4, §12)', () => {
  it('every surface answers its outcome or 503 `database unavailable` with Retry-After; health follows; nothing is aborted', async () => {
    const answers: Answer[] = [];
    const ids: string[] = [];
    let stop = false;
    const surfaces: Surface[] = ['rest', 'trpc', 'mcp'];
    // Every other request is a new identity (a write, whatever the outage lets through), the rest retry earlier ones.
    const clients = Array.from({ length: 6 }, async (_, c) => {
      for (let i = 0; !stop; i++) {
        const fresh = i % 2 === 0 || ids.length === 0;
        const ext = fresh ? uniq('down-') : ids[Math.floor(Math.random() * ids.length)]!;
        if (fresh) ids.push(ext);
        answers.push(await create(surfaces[c % 3]!, ext));
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    const metOutage = (s: Surface) => answers.some((a) => a.surface === s && isOutageAnswer(a));
    await new Promise((r) => setTimeout(r, 400));

    let lostAt = 0;
    let duringOutage: Answer[] = [];
    try {
      await fault.prepare();
      await fault.lose();
      lostAt = answers.length;
      try {
        // SPEC §12: the first health answer after the loss says so (its probe has a one-second deadline, health.ts).
        expect(await health()).toMatchObject({ http: 503, ready: false, database: 'down' });
        await expectStreamWhileLost();
        await until(() => surfaces.every(metOutage), 15_000, 'every surface to meet the outage');
      } finally {
        await fault.restore();
      }
      duringOutage = answers.slice(lostAt);
      await until(async () => (await health()).ready, 10_000, 'health to say ready again');
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      stop = true;
      await Promise.all(clients);
    }

    // Only two kinds of answer exist: the outcome, or the outage's 503.
    const odd = answers.filter((a) => a.status !== 200 || a.error !== undefined).filter((a) => !isOutageAnswer(a));
    expect(odd.map((a) => `${a.surface} ${a.status} ${a.error} retry-after=${a.retryAfter}`)).toEqual([]);
    expect(duringOutage.filter(isOutageAnswer).length, 'the outage met the creates').toBeGreaterThan(0);

    // SPEC §6: recovery completes every operation the outage cut short — none aborted.
    await until(
      async () =>
        (await count(
          fault.admin,
          "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state <> 'completed'",
          [ws.id],
        )) === 0,
      20_000,
      'every creation operation to complete',
    );
    // Every acknowledged id names one task, and that task holds it.
    for (const ext of ids) {
      const ok = answers.filter((a) => a.externalId === ext && a.taskId);
      expect(
        await count(fault.admin, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id = $2', [
          ws.id,
          ext,
        ]),
      ).toBeLessThanOrEqual(1);
      if (ok.length === 0) continue;
      expect(new Set(ok.map((a) => a.taskId)).size, `${ext} answered with different tasks`).toBe(1);
      expect(
        await count(fault.admin, 'SELECT COUNT(*) AS n FROM tasks WHERE id = $1 AND external_id = $2', [
          ok[0]!.taskId,
          ext,
        ]),
      ).toBe(1);
    }
  });

  // What the hostile run did: `pg_terminate_backend` on Tether's connections again and again during a burst of creates
  // that each plan a step (11 creates were aborted with REST 500 `a creation step failed; the create was aborted`).
  it.runIf(testDialect() === 'postgres')(
    'connections terminated again and again mid-burst: no 500, no abort, every id converges',
    async () => {
      const answers: Answer[] = [];
      const ids = Array.from({ length: 24 }, () => uniq('burst-'));
      const surfaces: Surface[] = ['rest', 'trpc', 'mcp'];
      let stop = false;
      const clients = Array.from({ length: 6 }, async (_, c) => {
        for (let i = 0; !stop; i++) answers.push(await create(surfaces[c % 3]!, ids[(c * 5 + i) % ids.length]!));
      });
      try {
        for (const until = Date.now() + 2_000; Date.now() < until;) {
          await fault.terminateConnections!();
          await new Promise((r) => setTimeout(r, 20 + Math.random() * 60));
        }
      } finally {
        stop = true;
        await Promise.all(clients);
      }
      const odd = answers.filter((a) => a.status !== 200 || a.error !== undefined).filter((a) => !isOutageAnswer(a));
      expect(odd.map((a) => `${a.surface} ${a.status} ${a.error}`)).toEqual([]);
      expect(answers.filter(isOutageAnswer).length, 'the terminations met the creates').toBeGreaterThan(0);
      // Each id converges: a retry now answers the task every earlier success named.
      for (const ext of ids) {
        const retry = await create('rest', ext);
        expect(retry.status).toBe(200);
        for (const a of answers.filter((x) => x.externalId === ext && x.taskId))
          expect(a.taskId, ext).toBe(retry.taskId);
      }
      await until(
        async () =>
          (await count(
            fault.admin,
            "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state <> 'completed'",
            [ws.id],
          )) === 0,
        20_000,
        'every creation operation to complete',
      );
    },
  );

  it('update, delete and release answer 503 while the database is lost, and go through once it is back', async () => {
    const ext = uniq('ops-');
    const made = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: ext, title: 'Before' },
    });
    expect(made.status).toBe(200);
    const id = (made.json as { id: string }).id;
    const other = (
      await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, title: 'To delete' } })
    ).json as { id: string };
    const key = crypto.randomUUID();
    const release = () =>
      call(api.url, 'DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
        token,
        headers: { 'idempotency-key': key },
      });
    const update = () => call(api.url, 'PATCH', `/api/v1/tasks/${id}`, { token, body: { title: 'After' } });
    const remove = () => call(api.url, 'DELETE', `/api/v1/tasks/${other.id}`, { token });

    await fault.prepare();
    await fault.lose();
    try {
      for (const r of [await update(), await remove(), await release()]) {
        expect(r.status, r.text).toBe(503);
        expect(r.text).toBe(UNAVAILABLE);
        expect(r.headers.get('retry-after')).toBe('1');
      }
      const t = await trpc(api.url, 'mutation', 'task.update', { id, patch: { title: 'After' } }, token);
      expect(t.status).toBe(503);
      expect((t.json as { error: { message: string; data: { domainCode: string } } }).error).toMatchObject({
        message: 'database unavailable',
        data: { domainCode: 'database_unavailable' },
      });
      expect(t.headers.get('retry-after')).toBe('1');
    } finally {
      await fault.restore();
    }
    expect((await update()).status).toBe(200);
    expect((await remove()).status).toBe(204);
    expect((await release()).status).toBe(204);
    // The same key again: the stored result, nothing released twice (SPEC §7).
    expect((await release()).status).toBe(204);
    expect(
      await count(fault.admin, 'SELECT COUNT(*) AS n FROM tasks WHERE id = $1 AND external_id IS NULL', [id]),
    ).toBe(1);
  });

  it("Prisma Client's errors (the cold paths) are the same DatabaseUnavailable: 503, never a 500", async () => {
    const prisma = await api.services.store.prisma();
    for (const kind of fault.kinds) {
      await fault.prepare();
      await fault.lose(kind);
      let err: unknown;
      try {
        err = await prisma.workspace.update({ where: { id: ws.id }, data: { name: `Renamed ${kind}` } }).then(
          () => undefined,
          (e: unknown) => e,
        );
      } finally {
        await fault.restore();
      }
      expect(err, kind).toBeDefined();
      expect(isDatabaseUnavailable(err), `${kind}: ${String(err)}`).toBe(true);
      expect(toDomainError(err).body()).toEqual({ error: 'database unavailable' });
    }
    await prisma.workspace.update({ where: { id: ws.id }, data: { name: 'Renamed after' } });
  });

  it('health says `database: down` on its first answer after the loss, and ready again after', async () => {
    expect(await health()).toMatchObject({ http: 200, ready: true, database: 'up' });
    await fault.prepare();
    await fault.lose();
    try {
      expect(await health()).toMatchObject({ http: 503, ready: false, database: 'down' });
    } finally {
      await fault.restore();
    }
    await until(async () => (await health()).http === 200, 5_000, 'health to say ready again');
    expect(await health()).toMatchObject({ ready: true, database: 'up' });
  });
});
