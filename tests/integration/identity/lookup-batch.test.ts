// On PostgreSQL, identity lookups issued together share one statement (src/server/db/dialect/postgres/
// tasks.ts). Each caller must still get exactly the answer its own single-row lookup would give.
import { BATCHED_BY_EXTERNAL_ID } from '../../../src/server/db/dialect/postgres/tasks';
import { MAX_BATCH } from '../../../src/server/db/dialect/postgres/statement-batch';
import { describe, expect, it as base } from '../../support/database-test';
import { testDialect } from '../../support/db';
import { createIdentities, makeWorkspace, uniq } from '../../support/fixtures';

// Identities that differ only by case, by a trailing space, or by normalization form, in two workspaces (`ws` is A,
// `other` is B), and the lookups the tests issue together (asked only once those identities exist).
const it = base
  .extend('ids', { scope: 'file' }, async ({ services, ws: a, other: b }) =>
    createIdentities(services, [
      [a, 'JIRA-1'],
      [a, 'jira-1'],
      [a, 'caf\u00e9'],
      [b, 'JIRA-1'],
      [b, 'thread <x@y>'],
    ] as const),
  )
  .extend('asks', { scope: 'file' }, async ({ ws: a, other: b, ids: _held }) => () => [
    [a.id, 'JIRA-1'],
    [a.id, 'jira-1'],
    [a.id, 'JIRA-1 '],
    [a.id, 'cafe\u0301'], // NFD: a different identity (SPEC §2.1 compares bytes)
    [a.id, 'caf\u00e9'],
    [b.id, 'JIRA-1'],
    [b.id, 'jira-1'],
    [b.id, 'thread <x@y>'],
    [a.id, 'thread <x@y>'],
    [a.id, 'JIRA-1'], // asked twice in one batch
    [uniq('no-such-workspace'), 'JIRA-1'],
  ]);

describe.skipIf(testDialect() !== 'postgres')('batched identity lookups (PostgreSQL)', () => {
  it('lookups issued together each get their own answer, as the single-row lookup gives it', async ({
    services,
    ws: a,
    ids,
    asks,
  }) => {
    const together = await Promise.all(asks().map(([w, e]) => services.store.tasks.findByExternalId(w!, e!)));
    const alone: Array<string | undefined> = [];
    for (const [w, e] of asks()) alone.push((await services.store.tasks.findByExternalId(w!, e!))?.id);
    expect(together.map((t) => t?.id)).toEqual(alone);
    expect(together.map((t) => t?.id)).toEqual(asks().map(([w, e]) => ids[`${w}/${e}`]));
    expect(together[0]).toMatchObject({
      workspaceId: a.id,
      externalId: 'JIRA-1',
      title: 'JIRA-1',
      creationState: 'completed',
    });
  });

  it('lookups issued together share statements (up to MAX_BATCH each); a lone lookup costs one', async ({
    db,
    services,
    ws: a,
    asks,
  }) => {
    let before = db.stats.statements;
    await Promise.all(asks().map(([w, e]) => services.store.tasks.findByExternalId(w!, e!)));
    expect(db.stats.statements - before).toBe(Math.ceil(asks().length / MAX_BATCH));
    before = db.stats.statements;
    await services.store.tasks.findByExternalId(a.id, 'JIRA-1');
    expect(db.stats.statements - before).toBe(1);
  });

  it('a value PostgreSQL cannot hold fails alone, not the lookups issued with it', async ({
    services,
    ws: a,
    other: b,
    ids,
  }) => {
    // A lone surrogate is carried as U+FFFD, as a text parameter would be: an answer (a miss), not an error.
    const [held, odd] = await Promise.all([
      services.store.tasks.findByExternalId(a.id, 'JIRA-1'),
      services.store.tasks.findByExternalId(a.id, 'x\ud800'),
    ]);
    expect([held?.id, odd]).toEqual([ids[`${a.id}/JIRA-1`], undefined]);
    const results = await Promise.allSettled([
      services.store.tasks.findByExternalId(a.id, 'JIRA-1'),
      services.store.tasks.findByExternalId(`${a.id}\u0000`, 'JIRA-1'),
      services.store.tasks.findByExternalId(b.id, 'JIRA-1'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[0]).toMatchObject({ value: { id: ids[`${a.id}/JIRA-1`] } });
  });

  it('the shared statement probes the identity index, even before the table was analyzed', async ({
    db,
    ws: a,
    other: b,
  }) => {
    const big = await makeWorkspace(db);
    await db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id, external_id_settled_at)
       SELECT 'bulk-' || g, $1, g, 'BULK-' || g, 't', $2, now(), now(), 1, 'completed', 'ext-' || g, now() FROM generate_series(1, 20000) g`,
      [big.id, big.steps[0]!.id],
    );
    const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${BATCHED_BY_EXTERNAL_ID}`, [
      JSON.stringify([
        [a.id, 'JIRA-1'],
        [b.id, 'JIRA-1'],
      ]),
    ]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('uniq_tasks_external_id');
    expect(text).not.toMatch(/Seq Scan on tasks/);
  });
});
