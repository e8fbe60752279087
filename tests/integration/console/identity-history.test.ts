// SPEC §13, §7: an identity's history through the console's tRPC procedures — every task that held an
// external id, how each hold ended, every release (who, when, which channel, the optional reason), who holds it now —
// and Find on a released id ("released … by …; now held by …" / "free since …"), on the dialect of the project.
import { randomUUID } from 'node:crypto';
import type { Actor } from '../../../src/server/domain/access';
import { describe, expect, it as base, storedMember, storedToken } from '../../support/console-test';
import { userActor } from '../../support/fixtures';

// An operator and a token stored as rows (so the history can name them), a viewer, and a release by any of them.
const it = base
  .extend('operator', { scope: 'file' }, async ({ db, ws }) => storedMember(db, ws.id, 'operator'))
  .extend('bot', { scope: 'file' }, async ({ db, ws }) => storedToken(db, ws.id, 'ci-bot'))
  .extend('viewer', { scope: 'file' }, async ({ ws }) => userActor({ [ws.id]: 'viewer' }))
  .extend(
    'release',
    { scope: 'file' },
    async ({ ws, as }) =>
      (actor: Actor, external_id: string, reason?: string) =>
        as(actor).task.releaseExternalId({
          workspace_id: ws.id,
          external_id,
          idempotency_key: randomUUID(),
          ...(reason === undefined ? {} : { reason }),
        }),
  );

describe('identity history', () => {
  it('create, release with a reason, re-create: both holders, the release, and the new holder', async ({
    ws,
    as,
    bot,
    operator,
    viewer,
    release,
  }) => {
    const first = await as(bot).task.create({ workspace_id: ws.id, title: 'First', external_id: 'jira:H-1' });
    await release(operator, 'jira:H-1', '  duplicate from a replayed webhook ');
    const second = await as(bot).task.create({ workspace_id: ws.id, title: 'Second', external_id: 'jira:H-1' });
    expect(second.id).not.toBe(first.id);

    const h = await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: 'jira:H-1' });
    expect(h.external_id).toBe('jira:H-1');
    expect(h.holder).toMatchObject({
      id: second.id,
      identifier: second.identifier,
      operation_state: 'completed',
      lookalikes: [],
    });
    expect(h.holders.map((x) => [x.identifier, x.ended, x.exists, x.created_by?.label])).toEqual([
      [first.identifier, 'released', true, 'token “ci-bot”'],
      [second.identifier, 'holds', true, 'token “ci-bot”'],
    ]);
    expect(h.holders[0]!.until).toBe(h.releases[0]!.at);
    expect(h.releases).toEqual([
      expect.objectContaining({
        actor: expect.objectContaining({ kind: 'user', label: operator.label }),
        source: 'console',
        reason: 'duplicate from a replayed webhook',
        result: 'released',
        holder_task_id: first.id,
        holder_identifier: first.identifier,
      }),
    ]);
    expect(h.free_since).toBeNull();

    // Find says it was released, by whom, and who holds it now.
    const found = await as(viewer).console.findByExternalId({ workspace_id: ws.id, external_id: 'jira:H-1' });
    expect(found).toMatchObject({
      task: { id: second.id },
      held_before: true,
      last_release: { actor: { kind: 'user', label: operator.label }, holder_identifier: first.identifier },
      free_since: null,
    });
  });

  it('a released id nothing holds: Find says released by whom and free since when; the miss is in the history too', async ({
    ws,
    as,
    bot,
    operator,
    viewer,
    release,
  }) => {
    const t = await as(bot).task.create({ workspace_id: ws.id, title: 'Gone', external_id: 'jira:H-2' });
    await release(bot, 'jira:H-2');
    await expect(release(operator, 'jira:H-2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    const found = await as(viewer).console.findByExternalId({ workspace_id: ws.id, external_id: 'jira:H-2' });
    expect(found.task).toBeNull();
    expect(found.last_release).toMatchObject({
      actor: { kind: 'token', label: 'token “ci-bot”' },
      source: 'console',
      reason: null,
      holder_identifier: t.identifier,
    });
    expect(found.free_since).toBe(found.last_release!.at);
    const h = await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: 'jira:H-2' });
    expect(h.holder).toBeNull();
    expect(h.releases.map((r) => [r.actor.label, r.result])).toEqual([
      [operator.label, 'nothing_held_it'],
      ['token “ci-bot”', 'released'],
    ]);
  });

  it('a deleted holder is named from its revisions; the history reads the visible form of an id', async ({
    ws,
    as,
    bot,
    viewer,
  }) => {
    const t = await as(bot).task.create({ workspace_id: ws.id, title: 'Spoof', external_id: 'rtl:\u202Eevil' });
    await as(bot).task.delete({ id: t.id });
    const h = await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: 'rtl:⟨U+202E⟩evil' });
    expect(h.external_id).toBe('rtl:\u202Eevil');
    expect(h.holders).toEqual([
      expect.objectContaining({ task_id: t.id, identifier: t.identifier, exists: false, ended: 'deleted' }),
    ]);
    expect(h.free_since).toBe(h.holders[0]!.until);
  });

  it('NFC and NFD spellings held by two tasks: each one names the other', async ({ ws, as, bot, viewer }) => {
    const nfc = await as(bot).task.create({ workspace_id: ws.id, title: 'NFC', external_id: 'caf\u00e9' });
    const nfd = await as(bot).task.create({ workspace_id: ws.id, title: 'NFD', external_id: 'cafe\u0301' });
    const h = await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: 'caf\u00e9' });
    expect(h.holder!.lookalikes).toEqual([
      { task_id: nfd.id, identifier: nfd.identifier, external_id: 'cafe\u0301', form: 'NFD' },
    ]);
    const found = await as(viewer).console.findByExternalId({ workspace_id: ws.id, external_id: 'cafe\u0301' });
    expect(found.task!.lookalikes).toEqual([
      { task_id: nfc.id, identifier: nfc.identifier, external_id: 'caf\u00e9', form: 'NFC' },
    ]);
  });

  it('Find reads the form the console shows (⟨U+200B⟩) unless the typed text itself has a history', async ({
    ws,
    as,
    bot,
    viewer,
  }) => {
    const t = await as(bot).task.create({ workspace_id: ws.id, title: 'Zero width', external_id: 'zw\u200bspace' });
    const found = await as(viewer).console.findByExternalId({ workspace_id: ws.id, external_id: 'zw⟨U+200B⟩space' });
    expect(found).toMatchObject({ normalized: 'zw\u200bspace', visible_form: true, task: { id: t.id } });
    // A miss on both: typing an escape means the character it names, so the answer is about that id.
    expect(
      await as(viewer).console.findByExternalId({ workspace_id: ws.id, external_id: 'zw⟨U+200C⟩space' }),
    ).toMatchObject({ normalized: 'zw\u200cspace', visible_form: true, task: null });
  });

  it('a never-used id has an empty history; bad input is refused; another workspace is a 404', async ({
    ws,
    as,
    viewer,
  }) => {
    expect(await as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: 'never:used' })).toMatchObject({
      holder: null,
      holders: [],
      releases: [],
      free_since: null,
    });
    await expect(as(viewer).console.identityHistory({ workspace_id: ws.id, external_id: '' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    const stranger: Actor = { ...viewer, id: randomUUID(), roles: new Map() };
    await expect(
      as(stranger).console.identityHistory({ workspace_id: ws.id, external_id: 'jira:H-1' }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
