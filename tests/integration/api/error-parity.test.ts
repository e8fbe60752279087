// SPEC §10 (amended): "Every REST error has its tRPC twin" — same message, the tRPC code of the REST
// status, the same domain code. One table walks every error of SPEC §7 and §10 (and the create errors of §2.1/§4.1)
// through the real HTTP server on both surfaces and holds them to each other and to the error table.
import { randomUUID } from 'node:crypto';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { ERRORS, type ErrorCode } from '../../../src/server/domain/errors/domain-error';
import { makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, trpc, type CallResult, type TestApi, useApiWorld } from '../../support/http';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let hidden: TestWorkspace;
let full: TestWorkspace;
let token: string;
/** A token on `full`, whose only step takes no task (WIP limit 0). */
let fullToken: string;
/** Identities held in `ws`: a settled one, and one whose create is completing (SPEC §4.3 phase A). */
let held: string;
let completing: string;
let taskId: string;
/** A key already used to release `held`'s neighbour — reusing it for another request is a conflict. */
let usedKey: string;

useApiWorld((w) => ({ db, api, ws, token } = w));
beforeAll(async () => {
  hidden = await makeWorkspace(db);
  full = await makeWorkspace(db, { steps: [{ name: 'Full', wipLimit: 0 }] });
  fullToken = await makeToken(db, [full.id]);
  const create = async (external_id: string) =>
    (await call(api.url, 'POST', '/api/v1/tasks', { token, body: { workspace_id: ws.id, external_id, title: 'Held' } }))
      .json as { id: string };
  held = uniq('held-');
  taskId = (await create(held)).id;
  completing = uniq('completing-');
  const c = await create(completing);
  await db.run("UPDATE tasks SET creation_state = 'completing' WHERE id = $1", [c.id]);
  usedKey = randomUUID();
  const first = await call(
    api.url,
    'DELETE',
    `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${uniq('used-')}`,
    { token, headers: { 'idempotency-key': usedKey } },
  );
  expect(first.status).toBe(404);
});

type Send = () => Promise<CallResult>;
interface Row {
  what: string;
  code: ErrorCode;
  /** The message when it is more than the table's words (a detail after a colon). */
  message?: string;
  /** The same request on each surface, built when the test runs (after the world is set up). */
  send: () => { rest: Send; trpc: Send };
}

const q = encodeURIComponent;
const restCreate =
  (body: unknown, t = token): Send =>
  () =>
    call(api.url, 'POST', '/api/v1/tasks', { token: t, body });
const trpcCreate =
  (input: unknown, t = token): Send =>
  () =>
    trpc(api.url, 'mutation', 'task.create', input, t);
const restLookup =
  (workspaceId: string, ext?: string): Send =>
  () =>
    call(
      api.url,
      'GET',
      `/api/v1/workspaces/${workspaceId}/tasks/by-external-id${ext === undefined ? '' : `?external_id=${q(ext)}`}`,
      { token },
    );
const trpcLookup =
  (workspaceId: string, ext?: string): Send =>
  () =>
    trpc(api.url, 'query', 'task.byExternalId', { workspace_id: workspaceId, external_id: ext }, token);
const restRelease =
  (workspaceId: string, ext: string, key?: string): Send =>
  () =>
    call(api.url, 'DELETE', `/api/v1/workspaces/${workspaceId}/tasks/by-external-id?external_id=${q(ext)}`, {
      token,
      headers: key === undefined ? {} : { 'idempotency-key': key },
    });
const trpcRelease =
  (workspaceId: string, ext: string, key?: string): Send =>
  () =>
    trpc(
      api.url,
      'mutation',
      'task.releaseExternalId',
      { workspace_id: workspaceId, external_id: ext, idempotency_key: key },
      token,
    );

const rows = (): Row[] => {
  const fresh = uniq('fresh-');
  const nobody = uniq('nobody-');
  return [
    // Create (SPEC §2.1, §4.1)
    {
      what: 'create: body is not JSON',
      code: 'invalid_payload',
      send: () => ({
        rest: () => call(api.url, 'POST', '/api/v1/tasks', { token, rawBody: '{"title":' }),
        trpc: () => call(api.url, 'POST', '/api/trpc/task.create', { token, rawBody: '{"title":' }),
      }),
    },
    {
      what: 'create: external_id is not a string',
      code: 'invalid_payload',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: 7, title: 'T' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: 7, title: 'T' }),
      }),
    },
    {
      what: 'create: neither workspace nor parent',
      code: 'workspace_required',
      send: () => ({ rest: restCreate({ title: 'T' }), trpc: trpcCreate({ title: 'T' }) }),
    },
    {
      what: 'create: a workspace the caller cannot access',
      code: 'task_not_created',
      send: () => ({
        rest: restCreate({ workspace_id: hidden.id, external_id: fresh, title: 'T' }),
        trpc: trpcCreate({ workspace_id: hidden.id, external_id: fresh, title: 'T' }),
      }),
    },
    {
      what: 'create: control characters',
      code: 'invalid_external_id_control',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: 'a\tb', title: 'T' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: 'a\tb', title: 'T' }),
      }),
    },
    {
      what: 'create: over 255 bytes',
      code: 'invalid_external_id_length',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: 'é'.repeat(128), title: 'T' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: 'é'.repeat(128), title: 'T' }),
      }),
    },
    {
      what: 'create: no title on a miss',
      code: 'title_required',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: fresh }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: fresh }),
      }),
    },
    {
      what: 'create: a wrong-typed field on a miss',
      code: 'validation_failed',
      message: 'invalid request: start_agent: Invalid input: expected boolean, received string',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: fresh, title: 'T', start_agent: 'yes' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: fresh, title: 'T', start_agent: 'yes' }),
      }),
    },
    // Text the store cannot keep, and values too long (SPEC §10): refused as such, never stored altered.
    {
      what: 'create: a lone low surrogate as the title',
      code: 'invalid_payload',
      message: 'invalid payload: title must be well-formed Unicode',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: fresh, title: '\udc00' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: fresh, title: '\udc00' }),
      }),
    },
    {
      what: 'create: a high surrogate without its pair in the description',
      code: 'invalid_payload',
      message: 'invalid payload: description must be well-formed Unicode',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, title: 'T', description: 'a\ud800b' }),
        trpc: trpcCreate({ workspace_id: ws.id, title: 'T', description: 'a\ud800b' }),
      }),
    },
    {
      what: 'create: a lone surrogate in the identity',
      code: 'invalid_payload',
      message: 'invalid payload: external_id must be well-formed Unicode',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: 'x-\ud800', title: 'T' }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: 'x-\ud800', title: 'T' }),
      }),
    },
    {
      what: 'create: NUL in the title',
      code: 'invalid_payload',
      message: 'invalid payload: title must not contain NUL (U+0000) characters',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, title: 'a\u0000b' }),
        trpc: trpcCreate({ workspace_id: ws.id, title: 'a\u0000b' }),
      }),
    },
    {
      what: 'create: a 600-character title',
      code: 'validation_failed',
      message: 'invalid request: title: must be 500 characters or fewer',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, external_id: fresh, title: 'x'.repeat(600) }),
        trpc: trpcCreate({ workspace_id: ws.id, external_id: fresh, title: 'x'.repeat(600) }),
      }),
    },
    {
      what: 'create: a description over 100,000 characters',
      code: 'validation_failed',
      message: 'invalid request: description: must be 100000 characters or fewer',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(100_001) }),
        trpc: trpcCreate({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(100_001) }),
      }),
    },
    {
      what: 'create: a contribution URL over 2,000 characters',
      code: 'validation_failed',
      message: 'invalid request: remote_contributions.0: must be 2000 characters or fewer',
      send: () => ({
        rest: restCreate({
          workspace_id: ws.id,
          title: 'T',
          remote_contributions: [`https://x.example/${'p'.repeat(2000)}`],
        }),
        trpc: trpcCreate({
          workspace_id: ws.id,
          title: 'T',
          remote_contributions: [`https://x.example/${'p'.repeat(2000)}`],
        }),
      }),
    },
    {
      what: 'create: more than 100 blockers',
      code: 'validation_failed',
      message: 'invalid request: blocked_by: must have 100 items or fewer',
      send: () => ({
        rest: restCreate({
          workspace_id: ws.id,
          title: 'T',
          blocked_by: Array.from({ length: 101 }, () => randomUUID()),
        }),
        trpc: trpcCreate({
          workspace_id: ws.id,
          title: 'T',
          blocked_by: Array.from({ length: 101 }, () => randomUUID()),
        }),
      }),
    },
    {
      what: 'create: the step is full',
      code: 'wip_limit_exceeded',
      send: () => ({
        rest: restCreate({ workspace_id: full.id, external_id: fresh, title: 'T' }, fullToken),
        trpc: trpcCreate({ workspace_id: full.id, external_id: fresh, title: 'T' }, fullToken),
      }),
    },
    {
      what: 'create: no credentials',
      code: 'unauthenticated',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, title: 'T' }, ''),
        trpc: trpcCreate({ workspace_id: ws.id, title: 'T' }, ''),
      }),
    },
    {
      what: 'create: a body over the limit',
      code: 'payload_too_large',
      send: () => ({
        rest: restCreate({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(1024 * 1024) }),
        trpc: trpcCreate({ workspace_id: ws.id, title: 'T', description: 'x'.repeat(1024 * 1024) }),
      }),
    },
    // Lookup (SPEC §7)
    {
      what: 'lookup: nothing holds it',
      code: 'task_not_found',
      send: () => ({ rest: restLookup(ws.id, nobody), trpc: trpcLookup(ws.id, nobody) }),
    },
    {
      what: 'lookup: a workspace the caller cannot access',
      code: 'task_not_found',
      send: () => ({ rest: restLookup(hidden.id, held), trpc: trpcLookup(hidden.id, held) }),
    },
    {
      what: 'lookup: no external_id',
      code: 'external_id_required',
      send: () => ({ rest: restLookup(ws.id), trpc: trpcLookup(ws.id) }),
    },
    {
      what: 'lookup: a blank external_id',
      code: 'external_id_required',
      send: () => ({ rest: restLookup(ws.id, ' \u00a0'), trpc: trpcLookup(ws.id, ' \u00a0') }),
    },
    {
      what: 'lookup: control characters',
      code: 'invalid_external_id_control',
      send: () => ({ rest: restLookup(ws.id, 'a\u007fb'), trpc: trpcLookup(ws.id, 'a\u007fb') }),
    },
    // Release (SPEC §7)
    {
      what: 'release: nothing holds it',
      code: 'task_not_found',
      send: () => ({ rest: restRelease(ws.id, nobody, randomUUID()), trpc: trpcRelease(ws.id, nobody, randomUUID()) }),
    },
    {
      what: 'release: a workspace the caller cannot access',
      code: 'task_not_found',
      send: () => ({
        rest: restRelease(hidden.id, held, 'not-a-uuid'),
        trpc: trpcRelease(hidden.id, held, 'not-a-uuid'),
      }),
    },
    {
      what: 'release: no key',
      code: 'idempotency_key_required',
      send: () => ({ rest: restRelease(ws.id, held), trpc: trpcRelease(ws.id, held) }),
    },
    {
      what: 'release: a key that is not a UUID',
      code: 'idempotency_key_invalid',
      send: () => ({ rest: restRelease(ws.id, held, 'not-a-uuid'), trpc: trpcRelease(ws.id, held, 'not-a-uuid') }),
    },
    {
      what: 'release: a blank external_id',
      code: 'external_id_required',
      send: () => ({ rest: restRelease(ws.id, '  ', randomUUID()), trpc: trpcRelease(ws.id, '  ', randomUUID()) }),
    },
    {
      what: 'release: the key was used for another request',
      code: 'idempotency_key_conflict',
      send: () => ({ rest: restRelease(ws.id, held, usedKey), trpc: trpcRelease(ws.id, held, usedKey) }),
    },
    {
      what: 'release: the holder is completing',
      code: 'creation_completing',
      send: () => ({
        rest: restRelease(ws.id, completing, randomUUID()),
        trpc: trpcRelease(ws.id, completing, randomUUID()),
      }),
    },
    // Update (SPEC §2.3)
    {
      what: 'update: the patch is not an object',
      code: 'invalid_payload',
      send: () => ({
        rest: () => call(api.url, 'PATCH', `/api/v1/tasks/${taskId}`, { token, body: 42 }),
        trpc: () => trpc(api.url, 'mutation', 'task.update', { id: taskId, patch: 42 }, token),
      }),
    },
    {
      what: 'update: an empty title',
      code: 'title_required',
      send: () => ({
        rest: () => call(api.url, 'PATCH', `/api/v1/tasks/${taskId}`, { token, body: { title: ' ' } }),
        trpc: () => trpc(api.url, 'mutation', 'task.update', { id: taskId, patch: { title: ' ' } }, token),
      }),
    },
    {
      what: 'update: a lone surrogate as the title',
      code: 'invalid_payload',
      message: 'invalid payload: title must be well-formed Unicode',
      send: () => ({
        rest: () => call(api.url, 'PATCH', `/api/v1/tasks/${taskId}`, { token, body: { title: 'a\udfff' } }),
        trpc: () => trpc(api.url, 'mutation', 'task.update', { id: taskId, patch: { title: 'a\udfff' } }, token),
      }),
    },
    {
      what: 'update: a 600-character title',
      code: 'validation_failed',
      message: 'invalid request: title: must be 500 characters or fewer',
      send: () => ({
        rest: () => call(api.url, 'PATCH', `/api/v1/tasks/${taskId}`, { token, body: { title: 'x'.repeat(600) } }),
        trpc: () => trpc(api.url, 'mutation', 'task.update', { id: taskId, patch: { title: 'x'.repeat(600) } }, token),
      }),
    },
    {
      what: 'update: no such task',
      code: 'task_not_found',
      send: () => ({
        rest: () => call(api.url, 'PATCH', `/api/v1/tasks/${randomUUID()}`, { token, body: { title: 'x' } }),
        trpc: () => trpc(api.url, 'mutation', 'task.update', { id: randomUUID(), patch: { title: 'x' } }, token),
      }),
    },
  ];
};

interface TrpcErrorBody {
  error: { message: string; data: { code: string; httpStatus: number; domainCode?: string } };
}

describe('REST and tRPC agree on every SPEC §7/§10 error', () => {
  it.each(rows().map((r) => [r.what, r] as const))('%s', async (_what, row) => {
    const entry = ERRORS[row.code];
    const message = row.message ?? entry.message;
    const send = row.send();
    const rest = await send.rest();
    const viaTrpc = await send.trpc();

    // REST: the table's status and words, plus `code` where SPEC §7 puts it in the body.
    expect(rest.status).toBe(entry.http);
    const restBody = rest.json as { error: string; code?: string };
    expect(restBody.error).toBe(message);
    if (row.code === 'creation_completing' || row.code === 'idempotency_key_conflict')
      expect(restBody.code).toBe(row.code);

    // tRPC: the same words and domain code, the tRPC code of that status, and the same HTTP status.
    const err = (viaTrpc.json as TrpcErrorBody).error;
    expect({ message: err.message, domainCode: err.data.domainCode, code: err.data.code }).toEqual({
      message,
      domainCode: row.code,
      code: entry.trpc,
    });
    expect(viaTrpc.status).toBe(rest.status);
    expect(getHTTPStatusCodeFromError(new TRPCError({ code: entry.trpc }))).toBe(entry.http);
  });

  it('covers every error SPEC §7 names', () => {
    const covered = new Set(rows().map((r) => r.code));
    for (const code of [
      'task_not_found',
      'idempotency_key_required',
      'idempotency_key_invalid',
      'idempotency_key_conflict',
      'creation_completing',
      'external_id_required',
    ] as const) {
      expect(covered, code).toContain(code);
    }
  });
});
