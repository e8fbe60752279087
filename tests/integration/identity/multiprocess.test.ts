// SPEC §2.2, §6, §12: several server processes share one database; the unique index settles every race.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { count, makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken } from '../../support/http';
import { useServerProcesses, type ServerProcess } from '../../support/processes';
import { EVENTS } from '../../support/events';

let db: Db;
let servers: ServerProcess[] = [];
let ws: TestWorkspace;
let token: string;

useServerProcesses(async (w) => {
  ({ db, servers } = w);
  ws = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
});

describe('two server processes', () => {
  it('50 simultaneous creates of one identity across both → one task, one Created, 49 Found, no error, sequence +1', async () => {
    const ext = uniq('mp-');
    const before = await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id]);
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(servers[i % 2]!.url, 'POST', '/api/v1/tasks', {
          token,
          body: { workspace_id: ws.id, external_id: ext, title: `T${i}` },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const bodies = responses.map((r) => r.json as { id: string; deduplicated: boolean });
    expect(bodies.filter((b) => !b.deduplicated)).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(before + 1);
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM creation_operations WHERE external_id = $1 AND state = 'completed'", [
        ext,
      ]),
    ).toBe(1);
  });

  // SPEC §4.3: a zero-step create is one commit; one with a planned step keeps Begin and Complete's two phases.
  it.each([
    { plan: 'zero-step (one commit)', extra: {} },
    {
      plan: 'with a planned step (two phases)',
      extra: { remote_contributions: [`https://git.example/acme/app/pull/${uniq('')}`] },
    },
  ])(
    '64 simultaneous creates of one identity across both, $plan → one task, one Created, 63 Found, no error',
    async ({ extra }) => {
      const ext = uniq('mp64-');
      const before = await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id]);
      const responses = await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          call(servers[i % 2]!.url, 'POST', '/api/v1/tasks', {
            token,
            body: { workspace_id: ws.id, external_id: ext, title: `T${i}`, ...extra },
          }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(64).fill(200));
      const bodies = responses.map((r) => r.json as { id: string; deduplicated: boolean });
      expect(bodies.filter((b) => !b.deduplicated)).toHaveLength(1);
      expect(new Set(bodies.map((b) => b.id)).size).toBe(1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
      expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(before + 1);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE external_id = $1', [ext])).toBe(1);
      expect(
        await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1 AND type = 'task.created'`, [
          bodies[0]!.id,
        ]),
      ).toBe(1);
    },
  );

  it('many identities raced across both processes → exactly one task each, no 5xx', async () => {
    const ids = Array.from({ length: 20 }, () => uniq('mpm-'));
    const responses = await Promise.all(
      ids.flatMap((ext) =>
        [0, 1, 2, 3].map((i) =>
          call(servers[i % 2]!.url, 'POST', '/api/v1/tasks', {
            token,
            body: { workspace_id: ws.id, external_id: ext, title: 'T' },
          }),
        ),
      ),
    );
    expect(responses.filter((r) => r.status !== 200).map((r) => r.text)).toEqual([]);
    for (const ext of ids)
      expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
  });
});
