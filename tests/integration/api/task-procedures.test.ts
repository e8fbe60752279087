// The task.* procedures' contracts (SPEC §3, §4, §7, §10), called the tRPC way — `createCaller` over a real database
// with `createContextInner` (STYLE habits 1–2) — beside the HTTP tests that cover the transport. Results
// are plain data (never HTTP statuses) and every "not there" is an error, release included.
import { randomUUID } from 'node:crypto';
import { TRPCError, type inferRouterInputs, type inferRouterOutputs } from '@trpc/server';
import type { Actor } from '../../../src/server/domain/access';
import { createContextInner } from '../../../src/server/api/context';
import { appRouter, type AppRouter } from '../../../src/server/api/root';
import { createCallerFactory } from '../../../src/server/api/trpc';
import { isDomainError } from '../../../src/server/domain/errors/domain-error';
import { describe, expect, expectTypeOf, it as base } from '../../support/database-test';
import { count, tokenActor, uniq } from '../../support/fixtures';

const createCaller = createCallerFactory(appRouter);

// A caller for any actor over the file's services (`as`), and one for a token that may write to the file's workspace
// (`trpc`; a fixture may not be named `caller`, a property every function has).
const it = base
  .extend(
    'as',
    { scope: 'file' },
    async ({ services }) =>
      (actor: Actor) =>
        createCaller(createContextInner({ services, actor })),
  )
  .extend('trpc', { scope: 'file' }, async ({ ws, as }) => {
    const writer = tokenActor([ws.id]);
    return () => as(writer);
  });

/** The tRPC code, message and domain code of a failed call (createCaller throws the TRPCError itself). */
async function failure(call: Promise<unknown>): Promise<{ code: string; message: string; domainCode?: string }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(err)}`);
  return { code: err.code, message: err.message, domainCode: isDomainError(err.cause) ? err.cause.code : undefined };
}

describe('task.create (SPEC §3, §4)', () => {
  it('Created, then Found with the same task; results carry both booleans and no status', async ({ ws, trpc }) => {
    const ext = uniq('cc-');
    const created = await trpc().task.create({ workspace_id: ws.id, external_id: ext, title: 'First' });
    expect(created).toMatchObject({
      workspace_id: ws.id,
      external_id: ext,
      title: 'First',
      deduplicated: false,
      creation_complete: true,
    });
    expect(created).not.toHaveProperty('status');
    // SPEC §10: an identity envelope without a title is accepted, and returns the stored task unchanged.
    const found = await trpc().task.create({ workspace_id: ws.id, external_id: ext });
    expect(found).toEqual({ ...created, deduplicated: true });
  });

  it('names the workspace through the parent alone (SPEC §4.1 step 2)', async ({ ws, trpc }) => {
    const parent = await trpc().task.create({ workspace_id: ws.id, title: 'Parent' });
    const child = await trpc().task.create({ parent_id: parent.id, title: 'Child' });
    expect(child).toMatchObject({ workspace_id: ws.id, parent_id: parent.id, deduplicated: false });
    expect(child).not.toHaveProperty('external_id');
  });

  it('neither workspace nor parent: BAD_REQUEST workspace_id is required (a typed client cannot even write it)', async ({
    trpc,
  }) => {
    // @ts-expect-error — the input type requires workspace_id or parent_id
    const err = await failure(trpc().task.create({ title: 'Nowhere' }));
    expect(err).toEqual({ code: 'BAD_REQUEST', message: 'workspace_id is required', domainCode: 'workspace_required' });
  });

  it('a workspace the caller cannot access: NOT_FOUND task not created, nothing written', async ({
    db,
    other,
    trpc,
  }) => {
    const before = await count(db, 'SELECT COUNT(*) AS n FROM tasks');
    const err = await failure(trpc().task.create({ workspace_id: other.id, external_id: uniq('cc-'), title: 'T' }));
    expect(err).toEqual({ code: 'NOT_FOUND', message: 'task not created', domainCode: 'task_not_created' });
    expect(await count(db, 'SELECT COUNT(*) AS n FROM tasks')).toBe(before);
  });
});

describe('task.byExternalId (SPEC §7 lookup)', () => {
  it('returns the holder with creation_complete; a miss is NOT_FOUND task not found', async ({ ws, trpc }) => {
    const ext = uniq('cl-');
    const created = await trpc().task.create({ workspace_id: ws.id, external_id: ext, title: 'Held' });
    const { deduplicated: _d, ...body } = created;
    expect(await trpc().task.byExternalId({ workspace_id: ws.id, external_id: ext })).toEqual(body);
    const miss = await failure(trpc().task.byExternalId({ workspace_id: ws.id, external_id: uniq('none-') }));
    expect(miss).toEqual({ code: 'NOT_FOUND', message: 'task not found', domainCode: 'task_not_found' });
  });
});

describe('task.releaseExternalId (SPEC §7 release)', () => {
  it('released → data; the same key again → the stored result, replayed', async ({ ws, trpc }) => {
    const ext = uniq('cr-');
    const task = await trpc().task.create({ workspace_id: ws.id, external_id: ext, title: 'Release me' });
    const key = randomUUID();
    const released = await trpc().task.releaseExternalId({
      workspace_id: ws.id,
      external_id: ext,
      idempotency_key: key,
    });
    expect(released).toEqual({
      released: true,
      replayed: false,
      release_id: expect.any(String),
      holder_task_id: task.id,
    });
    const replay = await trpc().task.releaseExternalId({
      workspace_id: ws.id,
      external_id: ext,
      idempotency_key: key,
    });
    expect(replay).toEqual({ ...released, replayed: true });
    expect(await trpc().task.get({ id: task.id })).not.toHaveProperty('external_id');
  });

  it('nothing holds it → NOT_FOUND task not found, stored; its replay is the same error', async ({ db, ws, trpc }) => {
    const key = randomUUID();
    const ext = uniq('nobody-');
    const input = { workspace_id: ws.id, external_id: ext, idempotency_key: key };
    expect(await failure(trpc().task.releaseExternalId(input))).toEqual({
      code: 'NOT_FOUND',
      message: 'task not found',
      domainCode: 'task_not_found',
    });
    const stored = await db.one<{ result_status: unknown }>(
      'SELECT result_status FROM release_operations WHERE idempotency_key = $1',
      [key],
    );
    expect(Number(stored?.result_status)).toBe(404);
    // A task taking the identity afterwards changes nothing for this key: the stored 404 is replayed (SPEC §7).
    await trpc().task.create({ workspace_id: ws.id, external_id: ext, title: 'Later' });
    expect(await failure(trpc().task.releaseExternalId(input))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'task not found',
    });
    expect(await trpc().task.byExternalId({ workspace_id: ws.id, external_id: ext })).toMatchObject({
      external_id: ext,
    });
  });

  it('the same key for another request → CONFLICT idempotency_key_conflict', async ({ ws, trpc }) => {
    const key = randomUUID();
    await failure(
      trpc().task.releaseExternalId({ workspace_id: ws.id, external_id: uniq('k1-'), idempotency_key: key }),
    );
    const err = await failure(
      trpc().task.releaseExternalId({ workspace_id: ws.id, external_id: uniq('k2-'), idempotency_key: key }),
    );
    expect(err).toEqual({
      code: 'CONFLICT',
      message: 'idempotency key reused with a different request',
      domainCode: 'idempotency_key_conflict',
    });
  });

  it('a key that is not a UUID → BAD_REQUEST; a caller without access → NOT_FOUND whatever the key', async ({
    ws,
    other,
    as,
    trpc,
  }) => {
    const bad = { workspace_id: ws.id, external_id: uniq('cr-'), idempotency_key: 'not-a-uuid' };
    expect(await failure(trpc().task.releaseExternalId(bad))).toEqual({
      code: 'BAD_REQUEST',
      message: 'Idempotency-Key must be a UUID',
      domainCode: 'idempotency_key_invalid',
    });
    const stranger = as(tokenActor([other.id]));
    expect(await failure(stranger.task.releaseExternalId(bad))).toEqual({
      code: 'NOT_FOUND',
      message: 'task not found',
      domainCode: 'task_not_found',
    });
  });
});

describe('task.update (SPEC §2.3)', () => {
  it('applies the patch and ignores external_id in it', async ({ ws, trpc }) => {
    const ext = uniq('cu-');
    const task = await trpc().task.create({ workspace_id: ws.id, external_id: ext, title: 'Before' });
    const patch = { title: 'After', external_id: 'stolen' } as { title: string };
    const updated = await trpc().task.update({ id: task.id, patch });
    expect(updated).toMatchObject({ id: task.id, title: 'After', external_id: ext, revision: task.revision + 1 });
  });

  it('refuses a patch that breaks its schema with REST words, changing nothing', async ({ ws, trpc }) => {
    const task = await trpc().task.create({ workspace_id: ws.id, title: 'Kept' });
    const err = await failure(trpc().task.update({ id: task.id, patch: { title: '  ' } }));
    expect(err).toEqual({ code: 'BAD_REQUEST', message: 'title is required', domainCode: 'title_required' });
    // @ts-expect-error — a patch is an object with a schema, not a number
    expect(await failure(trpc().task.update({ id: task.id, patch: 42 }))).toEqual({
      code: 'BAD_REQUEST',
      message: 'invalid payload',
      domainCode: 'invalid_payload',
    });
    expect((await trpc().task.get({ id: task.id })).title).toBe('Kept');
  });
});

describe('the types a client sees (SPEC §10)', () => {
  type In = inferRouterInputs<AppRouter>;
  type Out = inferRouterOutputs<AppRouter>;
  it('pins inputs and results', () => {
    expectTypeOf<In['task']['byExternalId']>().toEqualTypeOf<{ workspace_id: string; external_id: string }>();
    expectTypeOf<In['task']['releaseExternalId']['idempotency_key']>().toEqualTypeOf<string>();
    expectTypeOf<Out['task']['create']['deduplicated']>().toEqualTypeOf<boolean>();
    expectTypeOf<Out['task']['releaseExternalId']>().toEqualTypeOf<{
      released: true;
      replayed: boolean;
      release_id: string;
      holder_task_id: string;
    }>();
    expectTypeOf<Out['task']['get']>().not.toHaveProperty('creation_complete');
    expectTypeOf<Out['task']['byExternalId']>().toHaveProperty('creation_complete');
  });
});
