// A client that sends every create several times at once, with random client-side timeouts
// (AbortController), then retries until it gets an answer. SPEC §3/§4: every answer is one of the four outcomes
// or a clean error, every answer for one identity names the same task, and exactly one task exists per identity.
// `npm test` runs 200 identities × 5; TETHER_STORM_IDS=1000 TETHER_STORM_COPIES=10 runs the full storm.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { count, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { call, type TestApi, useApiWorld } from '../../support/http';

const IDS = Number(process.env.TETHER_STORM_IDS ?? 200);
const COPIES = Number(process.env.TETHER_STORM_COPIES ?? 5);
const IN_FLIGHT = 50;

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;

useApiWorld((w) => ({ db, api, ws, token } = w));

type Answer =
  | { kind: 'created' | 'found_settled' | 'found_unsettled' | 'created_identity_lost'; taskId: string }
  | { kind: 'clean_error'; status: number }
  | { kind: 'timed_out' };

/** Classifies one response by SPEC §3's table; anything else is a broken promise and throws. */
function classify(status: number, body: Record<string, unknown>, ext: string): Answer {
  if (status === 200) {
    const { deduplicated, creation_complete: complete, external_id: held, id } = body;
    if (typeof deduplicated !== 'boolean' || typeof complete !== 'boolean' || typeof id !== 'string')
      throw new Error(`bad 200 body ${JSON.stringify(body)}`);
    if (!deduplicated && !complete)
      throw new Error(`creation_complete:false without deduplicated: ${JSON.stringify(body)}`);
    if (held !== undefined && held !== ext) throw new Error(`wrong identity in body: ${JSON.stringify(body)}`);
    const kind = deduplicated
      ? complete
        ? 'found_settled'
        : 'found_unsettled'
      : held === undefined
        ? 'created_identity_lost'
        : 'created';
    return { kind, taskId: id };
  }
  // Clean errors a busy server may give: 503 (database busy/unavailable) and 429 with Retry-After.
  if ((status === 503 || status === 429) && typeof body.error === 'string' && !/\bat |\.ts:/.test(body.error))
    return { kind: 'clean_error', status };
  throw new Error(`unexpected ${status} ${JSON.stringify(body)}`);
}

async function create(ext: string, timeoutMs?: number): Promise<Answer> {
  const ctrl = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => ctrl.abort(), timeoutMs);
  try {
    // call(): every answer is also held to the OpenAPI document.
    const res = await call(api.url, 'POST', '/api/v1/tasks', {
      token,
      body: { workspace_id: ws.id, external_id: ext, title: `storm ${ext}` },
      signal: ctrl.signal,
    });
    return classify(res.status, res.json as Record<string, unknown>, ext);
  } catch (err) {
    if (ctrl.signal.aborted) return { kind: 'timed_out' };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `jobs` with at most `limit` in flight. */
async function bounded<T>(jobs: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

describe(`retry storm: ${IDS} identities × ${COPIES} concurrent copies, random client timeouts`, () => {
  it('every answer is an outcome or a clean error, one task per identity, same task in every answer', async () => {
    const ids = Array.from({ length: IDS }, (_, i) => `${uniq('storm-')}-${i}`);
    // Copies of one identity are adjacent, so they are in flight together; a third of them time out at random.
    const jobs = ids.flatMap((ext) =>
      Array.from(
        { length: COPIES },
        () => () =>
          create(ext, Math.random() < 0.33 ? 5 + Math.floor(Math.random() * 300) : undefined).then((a) => ({ ext, a })),
      ),
    );
    const answers = await bounded(jobs, IN_FLIGHT);

    // The retrying client: any identity without a definite answer is sent again until it has one.
    const final = new Map<string, string>();
    for (const ext of ids) {
      for (let attempt = 0; !final.has(ext); attempt++) {
        const a = await create(ext);
        if ('taskId' in a) final.set(ext, a.taskId);
        else if (attempt > 50) throw new Error(`${ext}: no answer after 50 retries`);
        else await new Promise((r) => setTimeout(r, 50));
      }
    }

    const tally: Record<string, number> = {};
    for (const { ext, a } of answers) {
      tally[a.kind] = (tally[a.kind] ?? 0) + 1;
      if ('taskId' in a) expect(a.taskId, `${ext} answered with two different tasks`).toBe(final.get(ext));
    }
    console.info(`[retry storm] ${answers.length} requests: ${JSON.stringify(tally)}`);
    expect(tally.created_identity_lost ?? 0).toBe(0); // nothing released: an identity can't be lost here

    // Server-side work the clients walked away from still finishes (SPEC §6), and nothing is duplicated.
    await until(
      async () =>
        (await count(
          db,
          "SELECT COUNT(*) AS n FROM creation_operations WHERE state NOT IN ('completed', 'aborted')",
        )) === 0,
      30_000,
      'operations to finish',
    );
    expect(
      await count(db, "SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id LIKE 'storm-%'", [
        ws.id,
      ]),
    ).toBe(IDS);
    expect(
      await count(
        db,
        "SELECT COUNT(DISTINCT external_id) AS n FROM tasks WHERE workspace_id = $1 AND external_id LIKE 'storm-%'",
        [ws.id],
      ),
    ).toBe(IDS);
    // Identifiers stay gapless: one sequence number per task (SPEC §4.1 step 7).
    expect(await count(db, 'SELECT task_sequence AS n FROM workspaces WHERE id = $1', [ws.id])).toBe(IDS);
  }, 300_000);
});
