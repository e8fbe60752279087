// SPEC §6, §13: a creation operation's detail shows its history — whose lease expired, which recovery took over at
// which generation, what recovery decided about the steps a dead owner left, and when Abort began with which error.
// Only those rare paths write history (creation_history); a create that finishes by itself writes none, so the
// create path costs what it did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/server/domain/access';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import type { Db } from '../../../src/server/db/types';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { claimExpired, driveRecovered } from '../../../src/server/runtime/recovery';
import type { Services } from '../../../src/server/services';
import { freshDb } from '../../support/db';
import {
  count,
  makeWorkspace,
  testServices,
  tokenActor,
  uniq,
  userActor,
  withPlannedStep,
  type TestWorkspace,
} from '../../support/fixtures';

const createCaller = createCallerFactory(appRouter);

let db: Db;
let creator: Services;
let recovery: Services;
let ws: TestWorkspace;
let bot: Actor;
let viewer: Actor;

beforeAll(async () => {
  db = await freshDb();
  creator = await testServices(db, { instanceId: 'creator-1' });
  recovery = await testServices(db, { instanceId: 'recovery-2' });
  ws = await makeWorkspace(db);
  bot = tokenActor([ws.id]);
  viewer = userActor({ [ws.id]: 'viewer' });
});
afterAll(async () => db?.close());

const readOperation = (id: string) =>
  createCaller(createContextInner({ services: recovery, actor: viewer, source: 'console' })).console.operation({ id });

const operationOf = async (ext: string) =>
  (await db.one<{ id: string }>('SELECT id FROM creation_operations WHERE external_id = $1', [ext]))!.id;

describe('operation history (SPEC §13)', () => {
  it('a create that finishes by itself writes no history', async () => {
    const ext = uniq('plain-');
    await createTask(creator, bot, withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Plain' }));
    const id = await operationOf(ext);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_history WHERE operation_id = $1', [id])).toBe(0);
    expect((await readOperation(id)).history).toEqual([]);
  });

  it('after the creator dies mid-step: the expired lease, the takeover and the re-run step, in order', async () => {
    const ext = uniq('crash-');
    // The creating request dies after marking its step running and before making the effect.
    creator.failpoints.arm({ name: 'step_before_effect', action: 'error', match: `${ext}#0` });
    await createTask(
      creator,
      bot,
      withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Abandoned' }),
    ).catch(() => undefined);
    creator.failpoints.release('step_before_effect');
    const id = await operationOf(ext);
    const expiredAt = new Date(Date.now() - 60_000).toISOString();
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE id = $1', [id, expiredAt]);
    await db.run("UPDATE creation_steps SET lease_expires_at = $2 WHERE operation_id = $1 AND state = 'running'", [
      id,
      expiredAt,
    ]);

    const [handle] = (await claimExpired(recovery, 50)).filter((h) => h.operationId === id);
    expect(handle).toBeDefined();
    await driveRecovered(recovery, handle!);

    const { operation, history, steps } = await readOperation(id);
    expect(operation.state).toBe('completed');
    expect(history).toEqual([
      // The creating request's attempt failed (in process: no request id) and left the operation to recovery.
      {
        kind: 'attempt_failed',
        at: expect.any(String),
        generation: 0,
        lease_owner: 'creator-1',
        request_id: null,
        error: 'internal (internal error): failpoint step_before_effect',
        step_index: 0,
        step_kind: 'remote_contribution',
      },
      {
        kind: 'takeover',
        at: expect.any(String),
        generation: 1,
        lease_owner: 'recovery-2',
        previous_owner: 'creator-1',
        lease_expired_at: expiredAt,
        lease_until: expect.any(String),
        request_id: handle!.requestId,
      },
      {
        kind: 'step_reconciled',
        at: expect.any(String),
        generation: 1,
        lease_owner: 'recovery-2',
        request_id: handle!.requestId,
        step_index: 0,
        step_kind: 'remote_contribution',
        decision: 'rerun',
        attempts: 1,
      },
    ]);
    expect(history[0]!.at <= history[1]!.at && history[1]!.at <= history[2]!.at).toBe(true);
    // The step ran a second time, under the recovery's generation.
    expect(steps[0]).toMatchObject({ state: 'succeeded', attempts: 2 });
  });

  it('entries stamped in the same millisecond read back in the order they were written', async () => {
    const ext = uniq('tie-');
    await createTask(creator, bot, withPlannedStep({ workspace_id: ws.id, external_id: ext, title: 'Tie' }));
    const id = await operationOf(ext);
    const at = new Date().toISOString();
    for (let i = 0; i < 12; i++) {
      await recovery.store.creation.recordHistory({
        operationId: id,
        at,
        generation: 1,
        leaseOwner: 'recovery-2',
        requestId: `r-${i}`,
        event: {
          kind: 'step_reconciled',
          stepIndex: i,
          stepKind: 'remote_contribution',
          decision: 'rerun',
          attempts: 1,
        },
      });
    }
    const { history } = await readOperation(id);
    expect(history.map((h) => h.request_id)).toEqual(Array.from({ length: 12 }, (_, i) => `r-${i}`));
  });

  it('an abort records when it began and why', async () => {
    const url = `https://git.example/acme/app/pull/${uniq('')}`;
    await createTask(creator, bot, { workspace_id: ws.id, title: 'holder', remote_contributions: [url] });
    const ext = uniq('abort-');
    await expect(
      createTask(creator, bot, { workspace_id: ws.id, external_id: ext, title: 'doomed', remote_contributions: [url] }),
    ).rejects.toMatchObject({ code: 'contribution_already_associated' });
    const { operation, history } = await readOperation(await operationOf(ext));
    expect(operation.state).toBe('aborted');
    expect(history).toEqual([
      {
        kind: 'aborting',
        at: expect.any(String),
        generation: 0,
        lease_owner: 'creator-1',
        request_id: null,
        error: operation.error,
        resumed: false,
      },
    ]);
    expect(operation.error).toBeTruthy();
  });
});
