// Prisma Client for the cold paths (console reads, settings and admin, CLI, tokens, users, webhook
// configuration, release history), one per process and dialect (STYLE habit 7), over the SAME connections the
// driver uses: PostgreSQL shares the pg Pool (PrismaPg accepts it); SQLite shares the one connection and its mutex
// (sqlite-adapter.ts). The two generated clients come from one model (prisma/postgres/schema.prisma; the
// SQLite schema is generated from it), so code is written once against one type. Built on first use: a process
// that never takes a cold path never loads it.
import type { PrismaClient } from '../../../generated/prisma-postgres/client';
import { PostgresDb, SqliteDb } from '../drivers';
import type { Db } from '../types';

export type Prisma = PrismaClient;

export async function createPrisma(db: Db): Promise<Prisma> {
  if (db instanceof PostgresDb) {
    const [{ PrismaClient }, { PrismaPg }] = await Promise.all([
      import('../../../generated/prisma-postgres/client'),
      import('@prisma/adapter-pg'),
    ]);
    return new PrismaClient({ adapter: new PrismaPg(db.pool) });
  }
  if (db instanceof SqliteDb) {
    const [{ PrismaClient }, { SharedSqliteAdapterFactory }] = await Promise.all([
      import('../../../generated/prisma-sqlite/client'),
      import('./sqlite-adapter'),
    ]);
    return new PrismaClient({ adapter: new SharedSqliteAdapterFactory(db) }) as unknown as Prisma;
  }
  throw new Error('unknown database');
}
