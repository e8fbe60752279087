// One Prisma client per process and dialect (STYLE habit 7), built on the same driver connection pool the
// hot path uses. The two generated clients come from identical models, so code is written once against one
// type; the brief's measurements keep the create/lookup hot path on the driver (db/types.ts) and use
// Prisma for the rest (console reads, admin commands).
import type { PrismaClient } from '../../generated/prisma-postgres/client';
import type { Db } from './types';
import { PostgresDb, SqliteDb } from './dialect';

export type Prisma = PrismaClient;

const clients = new WeakMap<Db, Promise<Prisma>>();

async function build(db: Db): Promise<Prisma> {
  if (db instanceof PostgresDb) {
    const [{ PrismaClient }, { PrismaPg }] = await Promise.all([
      import('../../generated/prisma-postgres/client'),
      import('@prisma/adapter-pg'),
    ]);
    return new PrismaClient({ adapter: new PrismaPg(db.pool) });
  }
  if (db instanceof SqliteDb) {
    const [{ PrismaClient }, { PrismaBetterSqlite3 }] = await Promise.all([
      import('../../generated/prisma-sqlite/client'),
      import('@prisma/adapter-better-sqlite3'),
    ]);
    const client = new PrismaClient({ adapter: new PrismaBetterSqlite3({ url: db.file }, { timestampFormat: 'iso8601' }) });
    return client as unknown as Prisma;
  }
  throw new Error('unknown database');
}

export function prismaFor(db: Db): Promise<Prisma> {
  let p = clients.get(db);
  if (!p) {
    p = build(db);
    clients.set(db, p);
  }
  return p;
}
