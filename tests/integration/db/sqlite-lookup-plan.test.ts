// On SQLite the identity lookup is written `= +$n` (src/server/db/dialect/sqlite/tasks.ts) so that,
// once ANALYZE has written sqlite_stat4, SQLite plans it once instead of on every execution. The `+` must change
// nothing else: the plan stays the unique identity index's one-row search (SPEC §4.1 step 5), and every lookup
// answers exactly what the plain statement answers — bytes compared as stored (SPEC §2.1), per workspace.
import { SqliteDb } from '../../../src/server/db/drivers/sqlite';
import { SQLITE_BY_EXTERNAL_ID } from '../../../src/server/db/dialect/sqlite/tasks';
import { BY_EXTERNAL_ID } from '../../../src/server/db/repositories/tasks';
import { describe, expect, it as base } from '../../support/database-test';
import { testDialect } from '../../support/db';
import { createIdentities, uniq } from '../../support/fixtures';

const positional = (sql: string) => sql.replace(/\$\d+/g, '?');

// Identities that differ only by case, by a trailing space, or by normalization form, in two workspaces (`ws` is A,
// `other` is B), then the statistics that made the plain statement re-plan on every execution.
const it = base.extend('ids', { scope: 'file' }, async ({ db, services, ws: a, other: b }) => {
  const ids = await createIdentities(services, [
    [a, 'JIRA-1'],
    [a, 'jira-1'],
    [a, 'caf\u00e9'],
    [a, '42'],
    [b, 'JIRA-1'],
  ] as const);
  await db.exec('ANALYZE');
  return ids;
});

describe.skipIf(testDialect() !== 'sqlite')('the SQLite identity lookup, planned once', () => {
  it('after ANALYZE (sqlite_stat4) the plan is still the unique identity index, searched on both columns', ({
    db,
    ws: a,
    ids: _analyzed,
  }) => {
    const raw = (db as SqliteDb).raw;
    expect(raw.prepare('SELECT count(*) AS n FROM sqlite_stat4').get()).not.toEqual({ n: 0 });
    const plan = raw
      .prepare(`EXPLAIN QUERY PLAN ${positional(SQLITE_BY_EXTERNAL_ID)}`)
      .all(a.id, 'JIRA-1')
      .map((r) => (r as { detail: string }).detail);
    expect(plan).toEqual(['SEARCH tasks USING INDEX uniq_tasks_external_id (workspace_id=? AND external_id=?)']);
  });

  it('answers exactly what the plain statement answers: bytes as stored, per workspace', async ({
    db,
    services,
    ws: a,
    other: b,
    ids,
  }) => {
    const asks = [
      [a.id, 'JIRA-1'],
      [a.id, 'jira-1'],
      [a.id, 'JIRA-1 '],
      [a.id, 'cafe\u0301'], // NFD: a different identity (SPEC §2.1 compares bytes)
      [a.id, 'caf\u00e9'],
      [a.id, '42'],
      [a.id, '42.0'], // no numeric affinity sneaks in
      [b.id, 'JIRA-1'],
      [b.id, 'jira-1'],
      [uniq('no-such-workspace'), 'JIRA-1'],
    ] as const;
    const viaStore: Array<string | undefined> = [];
    const plain: Array<string | undefined> = [];
    for (const [w, e] of asks) {
      viaStore.push((await services.store.tasks.findByExternalId(w, e))?.id);
      plain.push((await db.one<{ id: string }>(BY_EXTERNAL_ID, [w, e]))?.id);
    }
    expect(viaStore).toEqual(plain);
    expect(viaStore).toEqual(asks.map(([w, e]) => ids[`${w}/${e}`]));
  });
});
