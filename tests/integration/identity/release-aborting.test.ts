// SPEC §7 (amended): releasing a holder whose create is aborting answers 409 creation_aborting on
// every surface — nothing changes and nothing is stored as final — and once the abort has removed the task, a retry
// with the same key finds no holder. Before the fix this answered creation_completing.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { count, makeWorkspace, tokenActor, uniq, until } from '../../support/fixtures';
import { call, makeToken, trpc, useApiWorld, type ApiWorld } from '../../support/http';

let world: ApiWorld;
useApiWorld((w) => (world = w));

/** A create whose only step fails, paused after compensation with its operation `aborting` and its task still there. */
async function abortingCreate(wsId: string, ext: string) {
  const { services } = world.api;
  services.failpoints.arm({ name: 'abort_before_remove', action: 'pause', match: ext, times: 1 });
  const pending = createTask(services, tokenActor([wsId]), { workspace_id: wsId, external_id: ext, title: 'doomed' });
  pending.catch(() => {});
  await until(() => (services.failpoints.paused.get('abort_before_remove') ?? 0) === 1, 10_000, 'the abort to pause');
  return { pending };
}

describe('release of a holder whose create is aborting (SPEC §7)', () => {
  it('answers 409 creation_aborting on REST and tRPC, changes nothing, stores nothing; a retry after the abort is 404', async () => {
    const { db } = world;
    // The working-folder root lies under a plain file: the folder step fails for real and the create aborts.
    const file = join(mkdtempSync(join(tmpdir(), 'tether-root-')), 'not-a-folder');
    writeFileSync(file, '');
    const ws = await makeWorkspace(db, { rootPath: join(file, 'root') });
    const releaser = await makeToken(db, [ws.id]);
    const ext = uniq('abrt-');
    const { pending } = await abortingCreate(ws.id, ext);
    const before = await db.one('SELECT * FROM tasks WHERE workspace_id = $1 AND external_id = $2', [ws.id, ext]);
    expect(
      await db.one<{ state: string }>('SELECT state FROM creation_operations WHERE external_id = $1', [ext]),
    ).toMatchObject({ state: 'aborting' });

    const key = randomUUID();
    const path = `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${encodeURIComponent(ext)}`;
    const rest = await call(world.api.url, 'DELETE', path, { token: releaser, headers: { 'idempotency-key': key } });
    expect(rest.status).toBe(409);
    expect(rest.text).toBe('{"error":"creation is aborting; retry shortly","code":"creation_aborting"}');

    const viaTrpc = await trpc(
      world.api.url,
      'mutation',
      'task.releaseExternalId',
      { workspace_id: ws.id, external_id: ext, idempotency_key: key },
      releaser,
    );
    expect(viaTrpc.status).toBe(409);
    expect(viaTrpc.json).toMatchObject({
      error: {
        message: 'creation is aborting; retry shortly',
        data: { code: 'CONFLICT', domainCode: 'creation_aborting' },
      },
    });

    // Nothing changed, nothing stored as final.
    expect(await db.one('SELECT * FROM tasks WHERE workspace_id = $1 AND external_id = $2', [ws.id, ext])).toEqual(
      before,
    );
    expect(await count(db, 'SELECT COUNT(*) AS n FROM release_operations WHERE idempotency_key = $1', [key])).toBe(0);

    world.api.services.failpoints.release('abort_before_remove');
    await expect(pending).rejects.toMatchObject({ code: 'creation_step_failed' });
    const retry = await call(world.api.url, 'DELETE', path, { token: releaser, headers: { 'idempotency-key': key } });
    expect(retry.status).toBe(404);
    expect(retry.json).toEqual({ error: 'task not found' });
  });
});
