// The race — correctness under contention, not speed: for each of N identities, 64 concurrent creates of that one
// identity split across two server processes. Every response must be 200, every identity must map to exactly one task
// id, and the workspace must end with exactly N tasks.
import { Agent, request } from 'node:http';
import type { Db } from '../../src/server/db/types';

export interface RaceResult {
  identities: number;
  requests: number;
  tasks: number;
  duplicates: number;
  errors: number;
  firstError?: string;
  seconds: number;
}

function post(agent: Agent, base: string, token: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((ok, fail) => {
    const req = request(
      `${base}/api/v1/tasks`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => ok({ status: res.statusCode ?? 0, text }));
        res.on('error', fail);
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

export async function race(
  db: Db,
  servers: string[],
  token: string,
  workspaceId: string,
  identities: number,
  concurrency: number,
): Promise<RaceResult> {
  const agents = servers.map(() => new Agent({ keepAlive: true, maxSockets: concurrency }));
  const started = Date.now();
  let errors = 0;
  let duplicates = 0;
  let firstError: string | undefined;
  for (let i = 0; i < identities; i++) {
    const body = JSON.stringify({ workspace_id: workspaceId, external_id: `race-${i}`, title: `race ${i}` });
    const responses = await Promise.all(
      Array.from({ length: concurrency }, (_, k) =>
        post(agents[k % servers.length]!, servers[k % servers.length]!, token, body).catch((err: Error) => ({
          status: 0,
          text: err.message,
        })),
      ),
    );
    const ids = new Set<string>();
    for (const r of responses) {
      if (r.status !== 200) {
        errors++;
        firstError ??= `${r.status} ${r.text.slice(0, 200)}`;
        continue;
      }
      ids.add((JSON.parse(r.text) as { id: string }).id);
    }
    if (ids.size > 1) duplicates += ids.size - 1;
  }
  for (const a of agents) a.destroy();
  const row = await db.one<{ n: unknown }>('SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1', [workspaceId]);
  return {
    identities,
    requests: identities * concurrency,
    tasks: Number(row?.n ?? 0),
    duplicates,
    errors,
    firstError,
    seconds: (Date.now() - started) / 1000,
  };
}
