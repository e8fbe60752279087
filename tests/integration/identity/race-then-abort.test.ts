// SPEC §4.1 steps 7–8: a create that loses the identity race and then finds nothing on its re-read
// (the winner aborted in between) must not answer 500. Nothing holds the identity any more, so it runs again from
// the lookup and ends in a proper outcome; a create that keeps losing that way gives up with a 503 to retry.
import { randomUUID } from 'node:crypto';
import { createTask, LOST_RACE_RETRIES } from '../../../src/server/domain/tasks/create-task';
import type { Services } from '../../../src/server/services';
import { count, tokenActor, uniq, until, type TestWorkspace } from '../../support/fixtures';
import { describe, expect, it } from '../../support/database-test';

const actor = (ws: TestWorkspace) => tokenActor([ws.id]);

const pausedAt = (services: Services, point: string, n = 1) =>
  until(() => (services.failpoints.paused.get(point) ?? 0) === n, 10_000, `paused at ${point}`);

describe('a lost identity race whose re-read misses (SPEC §4.1 step 8)', () => {
  it('retries the create when the winner aborted meanwhile, and ends Created', async ({ db, services, ws }) => {
    const url = `https://git.example.com/acme/app/pull/${Math.floor(Math.random() * 1e9)}`;
    // C holds the contribution URL, so the winner's contribution step fails for real and its create aborts.
    await createTask(services, actor(ws), { workspace_id: ws.id, title: 'C', remote_contributions: [url] });
    const ext = uniq('lost-race-');

    // B looks up (miss) and waits before Begin.
    services.failpoints.arm({ name: 'before_begin', action: 'pause', match: ext, times: 1 });
    const b = createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'B' });
    b.catch(() => {});
    await pausedAt(services, 'before_begin');

    // A wins the identity (Begin commits) and waits before its step.
    services.failpoints.arm({ name: 'after_begin', action: 'pause', match: ext, times: 1 });
    const a = createTask(services, actor(ws), {
      workspace_id: ws.id,
      external_id: ext,
      title: 'A',
      remote_contributions: [url],
    });
    a.catch(() => {});
    await pausedAt(services, 'after_begin');

    // B's Begin hits the identity index; B waits before its re-read.
    services.failpoints.arm({ name: 'before_reread', action: 'pause', match: ext, times: 1 });
    services.failpoints.release('before_begin');
    await pausedAt(services, 'before_reread');

    // A's step fails, A aborts: its task row is gone and the identity is free again.
    services.failpoints.release('after_begin');
    await expect(a).rejects.toMatchObject({ code: 'contribution_already_associated' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(0);

    services.failpoints.release('before_reread');
    const outcome = await b;
    expect(outcome.kind).toBe('created');
    expect(outcome.task).toMatchObject({ title: 'B', externalId: ext, creationState: 'completed' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(1);
  });

  it(`gives up after ${LOST_RACE_RETRIES} retries with 503 identity_contended (retry shortly), having created nothing`, async ({
    db,
    services,
    ws,
  }) => {
    const ext = uniq('contended-');
    const points = services.failpoints;
    points.arm({ name: 'before_begin', action: 'pause', match: ext });
    const b = createTask(services, actor(ws), { workspace_id: ws.id, external_id: ext, title: 'B' });
    b.catch(() => {});
    let losses = 0;
    for (;;) {
      const settled = await Promise.race([
        pausedAt(services, 'before_begin').then(
          () => false,
          () => false,
        ),
        b.then(
          () => true,
          () => true,
        ),
      ]);
      if (settled) break;
      // Another holder appears between B's lookup and its Begin, and is gone again before B re-reads.
      const holder = randomUUID();
      await db.run(
        `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
         VALUES ($1, $2, $3, $4, 'holder', $5, $6, $6, 'preparing', $7)`,
        [holder, ws.id, 100_000 + losses, `${ws.prefix}-H${losses}`, ws.steps[0]!.id, new Date().toISOString(), ext],
      );
      points.arm({ name: 'before_reread', action: 'pause', match: ext });
      points.release('before_begin');
      await pausedAt(services, 'before_reread');
      await db.run('DELETE FROM tasks WHERE id = $1', [holder]);
      points.arm({ name: 'before_begin', action: 'pause', match: ext });
      points.release('before_reread');
      losses++;
      if (losses > LOST_RACE_RETRIES + 1) break;
    }
    points.release('before_begin');
    await expect(b).rejects.toMatchObject({ code: 'identity_contended', http: 503, headers: { 'retry-after': '1' } });
    expect(losses).toBe(LOST_RACE_RETRIES + 1);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(0);
  });
});
