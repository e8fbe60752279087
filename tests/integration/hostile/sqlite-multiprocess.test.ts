// SQLite: several server processes writing one database file under concurrent load. SQLite
// admits one writer at a time across processes; a busy database must be waited for (busy_timeout, BEGIN
// IMMEDIATE), never surface as SQLITE_BUSY in a 5xx, and the identity promise holds across processes.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { testDialect } from '../../support/db';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, type CallResult } from '../../support/http';
import { useServerProcesses, type ServerProcess } from '../../support/processes';

describe.runIf(testDialect() === 'sqlite')('two server processes writing one SQLite file', () => {
  let db: Db;
  let servers: ServerProcess[] = [];
  let ws: TestWorkspace;
  let token: string;

  useServerProcesses(async (w) => {
    ({ db, servers } = w);
    ws = await makeWorkspace(db);
    token = await makeToken(db, [ws.id]);
  });

  it('mixed concurrent writes from both processes (and this one) never answer 5xx; identities stay single', async () => {
    const ids = Array.from({ length: 60 }, () => uniq('sq-'));
    const results: Array<{ what: string; res: CallResult }> = [];
    const deadline = Date.now() + 8_000;
    const clients = Array.from({ length: 16 }, async (_, c) => {
      const base = servers[c % 2]!.url;
      for (let i = 0; Date.now() < deadline; i++) {
        const ext = ids[(c * 13 + i) % ids.length]!;
        const kind = i % 4;
        let res: CallResult;
        if (kind < 2)
          res = await call(base, 'POST', '/api/v1/tasks', {
            token,
            body: { workspace_id: ws.id, external_id: ext, title: `T${i}` },
          });
        else if (kind === 2)
          res = await call(base, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
            token,
          });
        else {
          const found = await call(base, 'GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
            token,
          });
          const id = (found.json as { id?: string } | undefined)?.id;
          res = id ? await call(base, 'PATCH', `/api/v1/tasks/${id}`, { token, body: { title: `U${c}-${i}` } }) : found;
        }
        results.push({ what: `${kind} ${ext}`, res });
      }
    });
    // A third writer outside the servers (think: the CLI), holding write transactions of its own.
    const outsider = (async () => {
      while (Date.now() < deadline) {
        await db.transaction(async (tx) => {
          await tx.run('UPDATE workspaces SET updated_at = $2 WHERE id = $1', [ws.id, new Date().toISOString()]);
          await new Promise((r) => setTimeout(r, 30));
        });
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await Promise.all([...clients, outsider]);

    const byStatus: Record<number, number> = {};
    for (const r of results) byStatus[r.res.status] = (byStatus[r.res.status] ?? 0) + 1;
    console.info(`[sqlite multi-process] ${results.length} requests by status ${JSON.stringify(byStatus)}`);
    const bad = results.filter((r) => r.res.status >= 500);
    expect(bad.map((r) => `${r.what} → ${r.res.status} ${r.res.text}`)).toEqual([]);
    expect(results.filter((r) => r.res.status === 200).length).toBeGreaterThan(100);
    for (const ext of ids) {
      expect(
        await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id = $2', [ws.id, ext]),
      ).toBeLessThanOrEqual(1);
    }
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM creation_operations WHERE state NOT IN ('completed', 'aborted')"),
    ).toBe(0);
  }, 60_000);
});
