// Prisma Client on SQLite, sharing the driver's ONE connection and its mutex (Prisma and the driver
// must not fight over the file). Two connections to one file in one process would mean two writers: a Prisma
// write while the driver holds BEGIN IMMEDIATE across awaits waits on SQLite's lock (busy_timeout), and a Prisma
// interactive transaction started with a deferred BEGIN can fail outright when it upgrades to a write
// (SQLITE_BUSY_SNAPSHOT). Sharing the connection and serialising every statement through the same mutex makes
// that impossible in-process; other processes are kept out by BEGIN IMMEDIATE and busy_timeout, as for the driver.
//
// Prisma's own better-sqlite3 adapter does the type mapping (rows, arguments, errors); we reuse it by building it
// over a throwaway in-memory connection and handing it ours. Three things differ from the stock adapter:
//   - every autocommit statement takes the driver's mutex (the stock adapter locks only transactions), after the
//     driver's open group of transactions, if any, has committed (group commit, drivers/sqlite.ts);
//   - a transaction starts with BEGIN IMMEDIATE (takes the write lock up front, like the driver's transactions);
//   - timestamps are written as `2026-01-01T00:00:00.000Z`, the format the driver writes, so text comparisons
//     (`lease_expires_at < $1`) and rows read by the driver stay uniform (the stock adapter writes `+00:00`).
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqliteDb } from '../drivers/sqlite';

type Factory = InstanceType<typeof PrismaBetterSqlite3>;
type Adapter = Awaited<ReturnType<Factory['connect']>>;
type Transaction = Awaited<ReturnType<Adapter['startTransaction']>>;
type Query = Parameters<Adapter['queryRaw']>[0];

/** Rewrites datetime arguments to the driver's ISO format (`…Z`), passed through as text. */
function uniformTimestamps(query: Query): Query {
  if (!query.argTypes.some((t) => t?.scalarType === 'datetime')) return query;
  const args = query.args.map((arg, i) => {
    if (query.argTypes[i]?.scalarType !== 'datetime' || arg === null || arg === undefined) return arg;
    return new Date(arg as string | number | Date).toISOString();
  });
  const argTypes = query.argTypes.map((t) =>
    t?.scalarType === 'datetime' ? { ...t, scalarType: 'string' as const } : t,
  );
  return { ...query, args, argTypes };
}

/** The stock adapter's query methods, bound to our connection, with uniform timestamps. */
function queryable(inner: Pick<Adapter, 'queryRaw' | 'executeRaw'>) {
  return {
    queryRaw: (q: Query) => inner.queryRaw(uniformTimestamps(q)),
    executeRaw: (q: Query) => inner.executeRaw(uniformTimestamps(q)),
  };
}

class SharedTransaction {
  readonly provider = 'sqlite' as const;
  readonly adapterName: string;
  // Prisma sends COMMIT/ROLLBACK itself through executeRaw, then calls commit()/rollback() (no phantom query).
  readonly options = { usePhantomQuery: false };
  readonly queryRaw: Transaction['queryRaw'];
  readonly executeRaw: Transaction['executeRaw'];

  constructor(
    inner: Adapter,
    private readonly unlock: () => void,
  ) {
    this.adapterName = inner.adapterName;
    const q = queryable(inner);
    this.queryRaw = q.queryRaw;
    this.executeRaw = q.executeRaw;
  }

  async commit(): Promise<void> {
    this.unlock();
  }

  async rollback(): Promise<void> {
    this.unlock();
  }
}

export class SharedSqliteAdapterFactory {
  readonly provider = 'sqlite' as const;
  readonly adapterName = '@prisma/adapter-better-sqlite3';

  constructor(private readonly db: SqliteDb) {}

  async connect(): Promise<Adapter> {
    const inner = await new PrismaBetterSqlite3({ url: ':memory:' }).connect();
    // The stock adapter keeps its connection in `client`; swap in the driver's and close the throwaway one.
    const holder = inner as unknown as { client: SqliteDb['raw'] };
    holder.client.close();
    holder.client = this.db.raw;
    const { db } = this;
    const { mutex, raw } = db;
    const q = queryable(inner);
    // Each first commits the driver's open group, if any (group commit, drivers/sqlite.ts): Prisma's statements and
    // transactions run on the connection outside it.
    const adapter = {
      provider: 'sqlite' as const,
      adapterName: inner.adapterName,
      queryRaw: (query: Query) => mutex.run(() => db.outsideGroup(() => q.queryRaw(query))),
      executeRaw: (query: Query) => mutex.run(() => db.outsideGroup(() => q.executeRaw(query))),
      executeScript: (script: string) => mutex.run(() => db.outsideGroup(() => raw.exec(script))).then(() => undefined),
      startTransaction: async (): Promise<Transaction> => {
        const unlock = await mutex.lock();
        try {
          db.outsideGroup(() => raw.exec('BEGIN IMMEDIATE'));
        } catch (err) {
          unlock();
          throw err;
        }
        return new SharedTransaction(inner, unlock) as unknown as Transaction;
      },
      // The connection belongs to the driver (SqliteDb.close closes it).
      dispose: async () => {},
    };
    return adapter as unknown as Adapter;
  }
}
