// SPEC §7, §13: a release may carry a reason — on REST (`?reason=`) and tRPC (`reason`) — stored with the
// release record. It is not part of the request hash: a retry with the same key and another reason replays the
// first release (and keeps the first reason); a bad reason is a 400 that changes nothing.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import type { TestWorkspace } from '../../support/fixtures';
import { count, uniq } from '../../support/fixtures';
import { call, trpc, type TestApi, useApiWorld } from '../../support/http';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
useApiWorld((w) => ({ db, api, ws, token } = w));

const q = encodeURIComponent;
async function held(): Promise<{ ext: string; id: string }> {
  const ext = uniq('why-');
  const r = await call(api.url, 'POST', '/api/v1/tasks', {
    token,
    body: { workspace_id: ws.id, external_id: ext, title: 'Held' },
  });
  expect(r.status).toBe(200);
  return { ext, id: (r.json as { id: string }).id };
}
const restRelease = (ext: string, key: string, reason?: string) =>
  call(
    api.url,
    'DELETE',
    `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${q(ext)}${reason === undefined ? '' : `&reason=${q(reason)}`}`,
    {
      token,
      headers: { 'idempotency-key': key },
    },
  );
const trpcRelease = (ext: string, key: string, reason?: unknown) =>
  trpc(
    api.url,
    'mutation',
    'task.releaseExternalId',
    { workspace_id: ws.id, external_id: ext, idempotency_key: key, ...(reason === undefined ? {} : { reason }) },
    token,
  );
const storedReason = async (key: string) =>
  (await db.one<{ reason: unknown }>('SELECT reason FROM release_operations WHERE idempotency_key = $1', [key]))
    ?.reason;

describe('release reason', () => {
  it('REST: ?reason= is stored with the release record, trimmed', async () => {
    const { ext } = await held();
    const key = randomUUID();
    expect((await restRelease(ext, key, '  duplicate of OPS-7, merged by hand ')).status).toBe(204);
    expect(await storedReason(key)).toBe('duplicate of OPS-7, merged by hand');
  });

  it('tRPC: reason is stored; absent or blank is stored as no reason', async () => {
    for (const reason of ['ticket moved to another project', undefined, '   ']) {
      const { ext } = await held();
      const key = randomUUID();
      const r = await trpcRelease(ext, key, reason);
      expect(r.status).toBe(200);
      expect(await storedReason(key)).toBe(reason?.trim() || null);
    }
  });

  it('a retry with the same key and another reason replays the first release and keeps the first reason (not part of the hash)', async () => {
    const { ext } = await held();
    const key = randomUUID();
    expect((await trpcRelease(ext, key, 'first words')).status).toBe(200);
    const again = await trpcRelease(ext, key, 'edited before the retry');
    expect(again.status).toBe(200);
    expect((again.json as { result: { data: { replayed: boolean } } }).result.data.replayed).toBe(true);
    expect((await restRelease(ext, key, 'a third reason')).status).toBe(204);
    expect(await storedReason(key)).toBe('first words');
    expect(await count(db, 'SELECT COUNT(*) AS n FROM release_operations WHERE idempotency_key = $1', [key])).toBe(1);
  });

  it('a bad reason is a 400 on both surfaces and changes nothing', async () => {
    const { ext, id } = await held();
    const cases: Array<[unknown, string]> = [
      ['x'.repeat(501), 'invalid request: reason: must be 500 characters or fewer'],
      ['line one\nline two', 'invalid request: reason: control characters are not allowed'],
    ];
    for (const [reason, message] of cases) {
      const key = randomUUID();
      const rest = await restRelease(ext, key, reason as string);
      expect({ status: rest.status, body: rest.json }).toEqual({ status: 400, body: { error: message } });
      const viaTrpc = await trpcRelease(ext, key, reason);
      expect(viaTrpc.status).toBe(400);
      expect((viaTrpc.json as { error: { message: string } }).error.message).toBe(message);
      expect(await count(db, 'SELECT COUNT(*) AS n FROM release_operations WHERE idempotency_key = $1', [key])).toBe(0);
    }
    // A non-string reason is a malformed request, before anything else.
    const typed = await trpcRelease(ext, randomUUID(), 42);
    expect(typed.status).toBe(400);
    expect((typed.json as { error: { message: string } }).error.message).toBe(
      'invalid payload: reason must be a string',
    );
    // 500 characters (not bytes) is still fine, and the identity was held all along.
    expect(
      (await db.one<{ external_id: unknown }>('SELECT external_id FROM tasks WHERE id = $1', [id]))?.external_id,
    ).toBe(ext);
    const key = randomUUID();
    expect((await restRelease(ext, key, 'é'.repeat(500))).status).toBe(204);
    expect(await storedReason(key)).toBe('é'.repeat(500));
  });
});
