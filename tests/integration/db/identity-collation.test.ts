// SPEC §2.2: identities compare byte for byte in both dialects — case matters — and uniq_tasks_external_id
// refuses the same value twice in one workspace (raw inserts, below every domain function).
import { randomUUID } from 'node:crypto';
import { isExternalIdViolation } from '../../../src/server/db/errors';
import { describe, expect, it as base } from '../../support/database-test';
import { count, type TestWorkspace } from '../../support/fixtures';

// A task inserted straight into the table, holding `externalId` in the file's workspace unless told another.
const it = base.extend('insert', { scope: 'file' }, async ({ db, ws }) => {
  let n = 0;
  return (externalId: string | null, workspace: TestWorkspace = ws) => {
    n++;
    const now = new Date().toISOString();
    return db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id)
       VALUES ($1, $2, $3, $4, 't', $5, $6, $6, 'completed', $7)`,
      [randomUUID(), workspace.id, n, `${workspace.prefix}-${n}`, workspace.steps[0]!.id, now, externalId],
    );
  };
});

describe('external identity collation (SPEC §2.2)', () => {
  it('holds ext-1 and EXT-1 in one workspace', async ({ db, ws, insert }) => {
    await insert('ext-1');
    await insert('EXT-1');
    expect(
      await count(db, `SELECT COUNT(*) AS n FROM tasks WHERE workspace_id = $1 AND external_id IN ('ext-1', 'EXT-1')`, [
        ws.id,
      ]),
    ).toBe(2);
  });

  it('holds the NFC and NFD spellings of one word as two identities', async ({ db, insert }) => {
    await insert('caf\u00e9');
    await insert('cafe\u0301');
    expect(
      await count(db, `SELECT COUNT(*) AS n FROM tasks WHERE external_id IN ($1, $2)`, ['caf\u00e9', 'cafe\u0301']),
    ).toBe(2);
  });

  it('refuses the same value twice in one workspace, as a violation of uniq_tasks_external_id', async ({ insert }) => {
    await insert('dup-1');
    const err = await insert('dup-1').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isExternalIdViolation(err)).toBe(true);
  });

  it('lets another workspace hold the same value', async ({ other, insert }) => {
    await insert('shared-1');
    await expect(insert('shared-1', other)).resolves.toBe(1);
  });

  it('never collides tasks without an identity', async ({ insert }) => {
    await insert(null);
    await expect(insert(null)).resolves.toBe(1);
  });
});
