import pg from 'pg';
import type { Db, DbStats, PoolStats, Sql } from '../types';
import { asDatabaseError, DatabaseUnavailable, dbErrorInfo } from '../errors';
import { SchemaAlarm } from './schema-alarm';
import { isoFromTimestamptz } from './postgres-timestamps';
import { isRetired, Topology } from './postgres-topology';
import { parsePostgresUrl } from './postgres-url';

// timestamptz and bigint come back as ISO strings / numbers so rows look the same as on SQLite.
pg.types.setTypeParser(pg.types.builtins.TIMESTAMPTZ, isoFromTimestamptz);
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

const WRITE = /^\s*(insert|update|delete|with)/i;

function toParam(v: unknown): unknown {
  if (v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v)) return JSON.stringify(v);
  return v;
}

/** Statement text → a stable name, so each pooled connection prepares it once (no re-parsing per call). */
const names = new Map<string, string>();
function nameFor(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `t${names.size}`;
    names.set(text, name);
  }
  return name;
}

/** A connection from the pool, never one on a node the topology has retired (topology.ts): those that were idle
 *  when their node stopped qualifying may be handed out once before they are gone; each is ended and another taken. */
async function checkout(pool: pg.Pool): Promise<pg.PoolClient> {
  for (;;) {
    const client = await pool.connect();
    if (!isRetired(client)) return client;
    client.release(true);
  }
}

/** Pool settings (config.ts `postgres`); tests and tools may open a pool with fewer connections. */
export interface PostgresOptions {
  max?: number;
  connectTimeoutMs?: number;
  queryTimeoutMs?: number;
  /** DIRECT_DATABASE_URL: PostgreSQL itself, for what needs a session (migrations, db/schema/migrate.ts) when `url` goes
   *  through PgBouncer. */
  directUrl?: string;
}

class PgSql implements Sql {
  readonly dialect = 'postgres' as const;
  constructor(
    private readonly client: pg.Pool | pg.PoolClient,
    protected readonly counters: DbStats,
    /** Outside a transaction every writing statement commits on its own: counted as a transaction (the bench reports commits per request). */
    private readonly autocommit: boolean,
    protected readonly alarm: SchemaAlarm,
    /** Named (prepared once per connection) statements; off behind PgBouncer, whose transaction pooling hands each
     *  transaction any server connection, where a statement prepared on another does not exist. */
    protected readonly named: boolean,
  ) {}

  private async exe(text: string, params: readonly unknown[]) {
    try {
      return await this.send(text, params);
    } catch (err) {
      throw this.alarm.check(asDatabaseError(err));
    }
  }

  private async send(text: string, params: readonly unknown[]) {
    this.counters.statements++;
    if (WRITE.test(text)) {
      this.counters.writes++;
      if (this.autocommit) this.counters.transactions++;
    }
    const config = { name: this.named ? nameFor(text) : undefined, text, values: params.map(toParam) };
    if (!(this.client instanceof pg.Pool)) return this.client.query(config);
    // Not `pool.query()`: it destroys the connection on ANY error (pg-pool releases with the error), and the
    // create protocol expects errors — a unique violation is how a lost race ends (SPEC §4.1 step 7). Each one
    // cost a new connection, a new backend process and re-preparing every statement (found by the
    // race benchmark, 64 concurrent creates of one identity). Only a connection that failed is discarded.
    const client = await checkout(this.client);
    let lost = false;
    const onError = () => {
      lost = true;
    };
    client.on('error', onError);
    try {
      return await client.query(config);
    } catch (err) {
      const info = dbErrorInfo(err);
      // A missing table is no fault of this connection: keep it.
      if (info?.unavailable !== false && !info?.schemaMissing) lost = true;
      throw err;
    } finally {
      client.off('error', onError);
      client.release(lost);
    }
  }
  async query<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.exe(text, params)).rows as T[];
  }
  async one<T>(text: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.exe(text, params)).rows[0] as T | undefined;
  }
  async run(text: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.exe(text, params)).rowCount ?? 0;
  }
}

export class PostgresDb extends PgSql implements Db {
  readonly stats: DbStats;
  readonly pool: pg.Pool;
  /** `url` reaches PostgreSQL through PgBouncer in transaction pooling mode (`pgbouncer=true`, url.ts). */
  readonly pooler: boolean;
  readonly directUrl: string | undefined;

  constructor(
    readonly url: string,
    private readonly options: PostgresOptions = {},
  ) {
    const stats: DbStats = { statements: 0, writes: 0, transactions: 0 };
    const parsed = parsePostgresUrl(url);
    const connection = {
      connectionString: parsed.connectionString,
      // Fail fast when the database is away: no request hangs past these bounds.
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      query_timeout: options.queryTimeoutMs ?? 30000,
    };
    // Several hosts, or a session the URL is particular about: the topology picks the node and follows failovers.
    const topology = Topology.needed(parsed) ? new Topology(parsed, connection) : undefined;
    const pool = new pg.Pool({
      ...connection,
      max: options.max ?? 8,
      idleTimeoutMillis: 30000,
      Client: topology?.clientClass(),
    });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // Nor may a client that is not idle: pg-pool removes its own listener while a client is handed out, and a
    // connection terminated right after it was opened delivers its FATAL in the same read as the end of the startup,
    // before whoever asked for it could listen — an 'error' event with no listener, which ends the process (found by
    // terminating Tether's connections under load). Every client keeps this one; its queries still fail, and the pool
    // discards it when it is released.
    pool.on('connect', (client) => client.on('error', () => {}));
    const alarm = new SchemaAlarm();
    super(pool, stats, true, alarm, !parsed.pgbouncer);
    this.pool = pool;
    this.stats = stats;
    this.pooler = parsed.pgbouncer;
    this.directUrl = options.directUrl;
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await checkout(this.pool).catch((err: unknown) => {
      throw this.alarm.check(asDatabaseError(err));
    });
    this.stats.transactions++;
    let broken = false;
    // pg-pool removes its error listener while a client is checked out. If the server goes away between two
    // statements of this transaction, the client emits 'error' with no listener and the whole process dies
    // (found by stopping PostgreSQL under load). Listen, and discard the client on release.
    const onError = () => {
      broken = true;
    };
    client.on('error', onError);
    try {
      await client.query('BEGIN');
      const result = await fn(new PgSql(client, this.stats, false, this.alarm, this.named));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch {
        broken = true;
      }
      // A failed BEGIN or COMMIT is the driver's error too: an ambiguous COMMIT (the connection lost around it) is
      // DatabaseUnavailable — the caller cannot know whether it landed (SPEC §4.3, §4.4).
      throw this.alarm.check(asDatabaseError(err));
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** A one-connection database on DIRECT_DATABASE_URL (what needs a session), with this one's timeouts; the caller
   *  closes it. */
  openDirect(): PostgresDb {
    if (!this.directUrl) throw new Error('no DIRECT_DATABASE_URL');
    return new PostgresDb(this.directUrl, {
      connectTimeoutMs: this.options.connectTimeoutMs,
      queryTimeoutMs: this.options.queryTimeoutMs,
      max: 1,
    });
  }

  onSchemaMissing(listener: () => void): () => void {
    return this.alarm.listen(listener);
  }

  poolStats(): PoolStats {
    return {
      max: this.pool.options.max ?? 0,
      total: this.pool.totalCount,
      idle: this.pool.idleCount,
      waiting: this.pool.waitingCount,
    };
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script).catch((err: unknown) => {
      throw this.alarm.check(asDatabaseError(err));
    });
  }

  async probe(): Promise<void> {
    // A standby, or a primary demoted by a failover, answers reads but refuses every write (SQLSTATE 25006).
    const row = await this.one<{ read_only: string }>("SELECT current_setting('transaction_read_only') AS read_only");
    if (row?.read_only === 'on')
      throw new DatabaseUnavailable(new Error('the database accepts no writes (read-only node)'));
  }

  private closing?: Promise<void>;

  /** Idempotent: the server and a test may both close the same database. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}
