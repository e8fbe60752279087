// Creation steps, Abort and the dispatch order (SPEC §4.1 steps 9–10, §4.3, §4.4, §5), on the running dialect.
import { abortOperation } from '../../../src/server/domain/creation/abort';
import { complete } from '../../../src/server/domain/creation/complete';
import { UnknownStepError } from '../../../src/server/domain/creation/errors';
import type { CreationHandle } from '../../../src/server/domain/creation/operation';
import { DomainError } from '../../../src/server/domain/errors/domain-error';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { dispatchLaunches } from '../../../src/server/runtime/dispatcher';
import { driveRecovered, claimExpired } from '../../../src/server/runtime/recovery';
import { count, uniq, until } from '../../support/fixtures';
import { effectsOf, expectEveryEffectOnce, fullBody, operationOf, upload } from './world';
import { describe, expect, it as base } from './world-test';
import { EVENTS, revisionTask } from '../../support/events';

// The task a create made for an external id in the world's workspace, and a create whose first step died mid-way:
// its handle as the request that made it held it, and the request's outcome.
const it = base
  .extend(
    'createdBy',
    { scope: 'file' },
    async ({ db, w }) =>
      async (ext: string) =>
        (await db.one<{ id: string; identifier: string }>(
          'SELECT id, identifier FROM tasks WHERE workspace_id = $1 AND external_id = $2',
          [w.ws.id, ext],
        ))!,
  )
  .extend(
    'pausedCreate',
    { scope: 'file' },
    async ({ db, services, w, createdBy }) =>
      async (ext: string): Promise<{ handle: CreationHandle; run: Promise<unknown> }> => {
        services.failpoints.arm({ name: 'step_before_effect', action: 'error', match: `${ext}#0` });
        const run = createTask(services, w.actor, { workspace_id: w.ws.id, external_id: ext, title: 't' }).catch(
          (e: unknown) => e,
        );
        await run;
        services.failpoints.release('step_before_effect');
        const task = await createdBy(ext);
        const op = await operationOf(db, task.id);
        // The request died mid-step: the step is running, the operation still leased by generation 0.
        const plan = JSON.parse(
          (await db.one<{ plan: string }>('SELECT plan FROM creation_operations WHERE id = $1', [op.id]))!.plan,
        );
        return {
          handle: {
            operationId: op.id,
            taskId: task.id,
            workspaceId: w.ws.id,
            actor: w.actor,
            plan,
            externalId: ext,
            token: '',
            generation: 0,
            recovered: true,
          },
          run,
        };
      },
  );

describe('creation steps (SPEC §5)', () => {
  it('a create with every step kind completes with each effect made exactly once', async ({ db, services, w }) => {
    const ext = uniq('all-');
    const out = await createTask(services, w.actor, fullBody(w, ext, await upload(services, w)));
    expect(out.kind).toBe('created');
    await expectEveryEffectOnce(db, w, out.task);
    const steps = await db.query<{ kind: string; state: string; attempts: number }>(
      'SELECT s.kind, s.state, s.attempts FROM creation_steps s JOIN creation_operations o ON o.id = s.operation_id WHERE o.task_id = $1 ORDER BY step_index',
      [out.task.id],
    );
    expect(steps.map((s) => [s.kind, s.state, Number(s.attempts)])).toEqual([
      ['workspace_attachment', 'succeeded', 1],
      ['attachment_claim', 'succeeded', 1],
      ['fresh_branch', 'succeeded', 1],
      ['remote_contribution', 'succeeded', 1],
      ['session_prepare', 'succeeded', 1],
      ['launch_intent', 'succeeded', 1],
    ]);
  });

  it('stores the contribution URL normalized (host case, trailing sub-page and slash)', async ({ db, services, w }) => {
    const ext = uniq('url-');
    const out = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      external_id: ext,
      title: 't',
      remote_contributions: ['https://GitHub.com/acme/App/pull/77/files/'],
    });
    const row = await db.one<{ url: string }>('SELECT url FROM remote_contributions WHERE task_id = $1', [out.task.id]);
    expect(row?.url).toBe('https://github.com/acme/App/pull/77');
  });

  it('plans nothing for a plain create in a workspace without a root', async ({ db, services, w }) => {
    const out = await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'plain', start_agent: false });
    const op = await db.one<{ plan: string }>('SELECT plan FROM creation_operations WHERE task_id = $1', [out.task.id]);
    // The world's workspace has a root: exactly the folder step, and start_policy none.
    expect(JSON.parse(op!.plan)).toMatchObject({ startPolicy: 'none', steps: [{ kind: 'workspace_attachment' }] });
  });
});

describe('abort (SPEC §4.4)', () => {
  it('a contribution already associated with another task aborts with 409 and compensates every earlier step', async ({
    db,
    services,
    w,
  }) => {
    const url = `https://github.com/acme/app/pull/${Math.floor(Math.random() * 1e9)}`;
    await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'holder', remote_contributions: [url] });
    const ext = uniq('dup-url-');
    const attachment = await upload(services, w);
    const err = await createTask(
      services,
      w.actor,
      fullBody(w, ext, attachment, { remote_contributions: [url] }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).http).toBe(409);
    expect((err as DomainError).code).toBe('contribution_already_associated');

    // The task row is gone (identity free), the operation aborted, every effect compensated, no event written.
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE external_id = $1', [ext])).toBe(0);
    const op = await db.one<Record<string, unknown>>(
      'SELECT id, task_id, state, error FROM creation_operations WHERE external_id = $1',
      [ext],
    );
    expect(op?.state).toBe('aborted');
    expect(String(op?.error)).toContain('already associated');
    const identifier = (await revisionTask(db, String(op!.task_id), 0))!.identifier;
    expect(await effectsOf(db, w, String(op!.task_id), identifier)).toEqual({
      folder: false,
      branch: null,
      claims: 0,
      contributions: 0,
      sessions: 0,
      intents: 0,
      launches: 0,
    });
    expect(await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS} WHERE task_id = $1`, [op!.task_id])).toBe(0);
    const compensated = await db.query<{ kind: string; compensation_state: string | null }>(
      'SELECT kind, compensation_state FROM creation_steps WHERE operation_id = $1 ORDER BY step_index',
      [op!.id],
    );
    expect(compensated.map((s) => s.compensation_state)).toEqual([
      'compensated',
      'compensated',
      'compensated',
      'compensated',
      null,
      null,
    ]);
  });

  it('an attachment claimed by another create fails the claim step with 400, and the identity can be used again', async ({
    services,
    w,
  }) => {
    const attachment = await upload(services, w);
    await createTask(services, w.actor, { workspace_id: w.ws.id, title: 'first claimer', attachments: [attachment] });
    const ext = uniq('claimed-');
    const err = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      external_id: ext,
      title: 't',
      attachments: [attachment],
    }).catch((e: unknown) => e);
    expect((err as DomainError).code).toBe('attachment_unavailable');
    expect((err as DomainError).http).toBe(400);
    const again = await createTask(services, w.actor, { workspace_id: w.ws.id, external_id: ext, title: 't' });
    expect(again.kind).toBe('created');
  });

  it('a missing attachment is a 400 before Begin: no task, no operation', async ({ db, services, w }) => {
    const ext = uniq('missing-');
    const err = await createTask(services, w.actor, {
      workspace_id: w.ws.id,
      external_id: ext,
      title: 't',
      attachments: ['nope'],
    }).catch((e: unknown) => e);
    expect((err as DomainError).http).toBe(400);
    expect(await count(db, 'SELECT COUNT(*) AS n FROM creation_operations WHERE external_id = $1', [ext])).toBe(0);
  });
});

describe('unknown steps (SPEC §4.4, §6)', () => {
  it('a step whose outcome is unknown blocks Complete', async ({ db, services, pausedCreate }) => {
    const { handle } = await pausedCreate(uniq('unk-c-'));
    await db.run("UPDATE creation_steps SET state = 'unknown' WHERE operation_id = $1", [handle.operationId]);
    await expect(complete(services, handle)).rejects.toBeInstanceOf(UnknownStepError);
    expect((await operationOf(db, handle.taskId)).state).toBe('preparing');
  });

  it('a step whose outcome is unknown blocks Abort', async ({ db, services, pausedCreate }) => {
    const { handle } = await pausedCreate(uniq('unk-a-'));
    await db.run("UPDATE creation_steps SET state = 'unknown' WHERE operation_id = $1", [handle.operationId]);
    await expect(abortOperation(services, handle, 'test')).rejects.toBeInstanceOf(UnknownStepError);
    expect((await operationOf(db, handle.taskId)).state).toBe('preparing');
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks WHERE id = $1', [handle.taskId])).toBe(1);
  });

  it('recovery verifies the unknown step, re-runs it, and completes', async ({ db, services, pausedCreate }) => {
    const ext = uniq('unk-r-');
    const { handle } = await pausedCreate(ext);
    await db.run('UPDATE creation_operations SET lease_expires_at = $2 WHERE id = $1', [
      handle.operationId,
      new Date(0).toISOString(),
    ]);
    await db.run('UPDATE creation_steps SET lease_expires_at = $2 WHERE operation_id = $1', [
      handle.operationId,
      new Date(0).toISOString(),
    ]);
    const claimed = (await claimExpired(services, 50)).filter((h) => h.operationId === handle.operationId);
    expect(claimed).toHaveLength(1);
    await driveRecovered(services, claimed[0]!);
    expect((await operationOf(db, handle.taskId)).state).toBe('completed');
    const step = await db.one<{ state: string; attempts: number }>(
      'SELECT state, attempts FROM creation_steps WHERE operation_id = $1',
      [handle.operationId],
    );
    expect([step?.state, Number(step?.attempts)]).toEqual(['succeeded', 2]);
  });
});

describe('dispatch order (SPEC §4.1 step 10)', () => {
  it('nothing launches before Complete succeeds', async ({ db, services, w, createdBy }) => {
    const ext = uniq('order-');
    services.failpoints.arm({ name: 'complete_between_phases', action: 'pause', match: ext });
    const run = createTask(services, w.actor, fullBody(w, ext, await upload(services, w)));
    await until(() => (services.failpoints.paused.get('complete_between_phases') ?? 0) > 0, 10_000, 'pause');
    const task = await createdBy(ext);
    // A dispatch pass while the creation is completing launches nothing; the session stays prepared.
    expect(await dispatchLaunches(services)).toBe(0);
    expect((await effectsOf(db, w, task.id, task.identifier)).launches).toBe(0);
    expect(
      (await db.one<{ state: string }>('SELECT state FROM agent_sessions WHERE task_id = $1', [task.id]))?.state,
    ).toBe('prepared');
    services.failpoints.release('complete_between_phases');
    expect((await run).kind).toBe('created');
    await until(async () => (await effectsOf(db, w, task.id, task.identifier)).launches === 1, 10_000, 'launch');
    // Started: the test runner's agent command exits at once, so the session may already be `finished`.
    expect(
      (await db.one<{ state: string }>('SELECT state FROM agent_sessions WHERE task_id = $1', [task.id]))?.state,
    ).toMatch(/^(running|finished)$/);
  });

  it('CreatedIdentityLost still launches', async ({ db, services, w, createdBy }) => {
    const ext = uniq('lost-');
    services.failpoints.arm({ name: 'step_after_record', action: 'pause', match: `${ext}#0` });
    const run = createTask(services, w.actor, fullBody(w, ext, await upload(services, w)));
    await until(() => (services.failpoints.paused.get('step_after_record') ?? 0) > 0, 10_000, 'pause');
    const task = await createdBy(ext);
    // A release while preparing (SPEC §7): identity cleared, operation marked; its Complete yields identity lost.
    await db.run('UPDATE tasks SET external_id = NULL WHERE id = $1', [task.id]);
    await db.run('UPDATE creation_operations SET identity_released = $2 WHERE task_id = $1', [task.id, true]);
    services.failpoints.release('step_after_record');
    expect((await run).kind).toBe('created_identity_lost');
    await until(async () => (await effectsOf(db, w, task.id, task.identifier)).launches === 1, 10_000, 'launch');
  });
});
