// SPEC §12 legacy diagnostic: a task holding an identity with no settlement and no creation operation blocks
// readiness (identity reads and writes answer 503) and is listed, until an operator resolves it.
import { randomUUID } from 'node:crypto';
import { attest } from '../../../src/server/db/schema/attest';
import { DomainError } from '../../../src/server/domain/errors/domain-error';
import { Readiness } from '../../../src/server/readiness';
import { describe, expect, it as base } from '../../support/database-test';

// Rows written straight into the file's workspace: a task holding `externalId` (settled or not), and a creation
// operation for a task.
const it = base
  .extend('insertTask', { scope: 'file' }, async ({ db, ws }) => {
    let n = 0;
    return async (externalId: string | null, settled: boolean): Promise<string> => {
      const id = randomUUID();
      const now = new Date().toISOString();
      n++;
      await db.run(
        `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, creation_state, external_id, external_id_settled_at)
         VALUES ($1, $2, $3, $4, 't', $5, $6, $6, 'completed', $7, $8)`,
        [id, ws.id, n, `${ws.prefix}-${n}`, ws.steps[0]!.id, now, externalId, settled ? now : null],
      );
      return id;
    };
  })
  .extend(
    'addCreationOperation',
    { scope: 'file' },
    async ({ db, ws }) =>
      async (taskId: string, externalId: string): Promise<void> => {
        const now = new Date().toISOString();
        await db.run(
          `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, created_at, updated_at)
           VALUES ($1, $2, $3, 'actor', $4, 'running', '[]', 'h', $5, $5)`,
          [randomUUID(), ws.id, taskId, externalId, now],
        );
      },
  );

describe('legacy identity diagnostic (SPEC §12)', () => {
  it('does not count settled identities, unsettled ones with a creation operation, or tasks without an identity', async ({
    db,
    insertTask,
    addCreationOperation,
  }) => {
    await insertTask('settled-1', true);
    await addCreationOperation(await insertTask('in-flight-1', false), 'in-flight-1');
    await insertTask(null, false);
    expect(await attest(db)).toMatchObject({ ready: true, reasons: [], legacy: [] });
  });

  it('lists an unsettled identity without a creation operation and is not ready', async ({ db, ws, insertTask }) => {
    const id = await insertTask('legacy-1', false);
    const result = await attest(db);
    expect(result.ready).toBe(false);
    expect(result.legacy).toEqual([{ task_id: id, workspace_id: ws.id, external_id: 'legacy-1' }]);
    expect(result.reasons).toEqual([
      '1 legacy task(s) hold an external_id with no settlement and no creation operation; an operator must settle or release them',
    ]);
  });

  it('makes every identity read and write answer 503 through the readiness gate', async ({ db }) => {
    const readiness = new Readiness();
    await readiness.refresh(db);
    let caught: unknown;
    try {
      readiness.requireIdentity();
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DomainError);
    expect((caught as DomainError).code).toBe('identity_not_ready');
    expect((caught as DomainError).http).toBe(503);
    expect((caught as DomainError).message).toMatch(/legacy task\(s\)/);
  });

  it('a refresh asked for while a run is in flight gets a run that starts after it, seeing what changed meanwhile', async ({
    db,
    insertTask,
  }) => {
    const readiness = new Readiness();
    await db.run(`UPDATE tasks SET external_id_settled_at = $1 WHERE external_id = 'legacy-1'`, [
      new Date().toISOString(),
    ]);
    const inFlight = readiness.refresh(db);
    await insertTask('legacy-late', false);
    const after = await readiness.refresh(db);
    expect(after).not.toBe(await inFlight);
    expect(after).toMatchObject({ ready: false, legacy: [expect.objectContaining({ external_id: 'legacy-late' })] });
    await db.run(`UPDATE tasks SET external_id_settled_at = $1 WHERE external_id = 'legacy-late'`, [
      new Date().toISOString(),
    ]);
  });

  it('is ready again once an operator settles the legacy row', async ({ db }) => {
    await db.run(`UPDATE tasks SET external_id_settled_at = $1 WHERE external_id = 'legacy-1'`, [
      new Date().toISOString(),
    ]);
    expect(await attest(db)).toMatchObject({ ready: true, legacy: [] });
  });
});
