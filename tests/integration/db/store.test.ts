// The store runs the hot paths on the driver and the cold paths on Prisma Client over the SAME
// connections. On SQLite that means one connection and one mutex for both, so they never fight over the file;
// these tests drive both at once and check what each wrote.
import { randomUUID } from 'node:crypto';
import { dbErrorInfo } from '../../../src/server/db/errors';
import { describe, expect, it } from '../../support/database-test';
import { makeWorkspace, uniq } from '../../support/fixtures';

describe('the store: driver and Prisma Client together', () => {
  it('Prisma writes timestamps in the format the driver writes and compares (ISO 8601, Z)', async ({ store }) => {
    const prisma = await store.prisma();
    const id = randomUUID();
    const at = new Date('2026-03-04T05:06:07.089Z');
    await prisma.workspace.create({
      data: { id, name: 'ts', prefix: uniq('T').toUpperCase(), createdAt: at, updatedAt: at },
    });
    const row = await store.driver.one<{ created_at: unknown }>('SELECT created_at FROM workspaces WHERE id = $1', [
      id,
    ]);
    expect(String(row?.created_at)).toBe('2026-03-04T05:06:07.089Z');
    const back = await prisma.workspace.findUnique({ where: { id }, select: { createdAt: true } });
    expect(back?.createdAt.toISOString()).toBe('2026-03-04T05:06:07.089Z');
  });

  it('interleaved Prisma transactions and driver transactions all commit, none busy, nothing lost', async ({
    store,
  }) => {
    const ws = await makeWorkspace(store.driver);
    const prisma = await store.prisma();
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i++) {
      // Cold path: a Prisma interactive transaction that reads, waits (holding it open), then writes.
      work.push(
        prisma.$transaction(async (tx) => {
          await tx.workspace.findUniqueOrThrow({ where: { id: ws.id }, select: { name: true } });
          await new Promise((r) => setTimeout(r, 2));
          await tx.workspace.update({ where: { id: ws.id }, data: { taskSequence: { increment: 1 } } });
        }),
      );
      // Hot path: a driver transaction bumping the same row.
      work.push(
        store.driver.transaction(async (tx) => {
          await tx.run('UPDATE workspaces SET task_sequence = task_sequence + 1 WHERE id = $1', [ws.id]);
        }),
      );
      // And autocommit statements of both.
      work.push(prisma.workspace.count());
      work.push(store.tasks.findByExternalId(ws.id, `x-${i}`));
    }
    const results = await Promise.allSettled(work);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const row = await store.driver.one<{ task_sequence: unknown }>(
      'SELECT task_sequence FROM workspaces WHERE id = $1',
      [ws.id],
    );
    expect(Number(row?.task_sequence)).toBe(40);
  });

  it('a unique violation raised through Prisma names the same index as the driver would', async ({ store }) => {
    const prisma = await store.prisma();
    const prefix = uniq('U').toUpperCase();
    const at = new Date();
    await prisma.workspace.create({ data: { id: randomUUID(), name: 'a', prefix, createdAt: at, updatedAt: at } });
    const err = await prisma.workspace
      .create({ data: { id: randomUUID(), name: 'b', prefix, createdAt: at, updatedAt: at } })
      .catch((e: unknown) => e);
    const info = dbErrorInfo(err);
    expect(info?.uniqueViolation).toBe(true);
    expect(['uniq_workspaces_prefix', 'workspaces.prefix']).toContain(info?.target);
  });

  it('a repository method that needs Prisma is not offered inside a driver transaction: the hot type lacks it', async ({
    store,
  }) => {
    const offered = await store.transaction(async (tx) => {
      // @ts-expect-error listIds reads through Prisma Client: only the store's cold repository has it.
      const cold: unknown = tx.workspaces.listIds;
      return cold;
    });
    expect(offered).toBeUndefined();
    expect(typeof store.workspaces.listIds).toBe('function');
  });
});
