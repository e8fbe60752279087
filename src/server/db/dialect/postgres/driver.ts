import pg from 'pg';
import type { Db, DbErrorInfo, DbStats, PoolStats, Sql } from '../../types';
import { SchemaAlarm } from '../../schema-alarm';
import { isoFromTimestamptz } from './timestamps';
import { isRetired, Topology } from './topology';
import { parsePostgresUrl } from './url';

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

/** Statement text → a stable name, so each pooled connection prepares it once (issue 4: prepared statements). */
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
  /** DIRECT_DATABASE_URL: PostgreSQL itself, for what needs a session (migrations, db/migrate.ts) when `url` goes
   *  through PgBouncer. */
  directUrl?: string;
}

class PgSql implements Sql {
  readonly dialect = 'postgres' as const;
  constructor(
    private readonly client: pg.Pool | pg.PoolClient,
    protected readonly counters: DbStats,
    /** Outside a transaction every writing statement commits on its own: counted as a transaction (issue 4). */
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
      this.alarm.check(postgresErrorInfo(err));
      throw err;
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
    // cost a new connection, a new backend process and re-preparing every statement (issue 4: found by the
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
      const info = postgresErrorInfo(err);
      // A missing table is no fault of this connection (issue 18): keep it.
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
      // Fail fast when the database is away (issue 9): no request hangs past these bounds.
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      query_timeout: options.queryTimeoutMs ?? 30000,
    };
    // Several hosts, or a session the URL is particular about: the topology picks the node and follows failovers.
    const topology = Topology.needed(parsed) ? new Topology(parsed, connection) : undefined;
    const pool = new pg.Pool({ ...connection, max: options.max ?? 8, idleTimeoutMillis: 30000, Client: topology?.clientClass() });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    const alarm = new SchemaAlarm();
    super(pool, stats, true, alarm, !parsed.pgbouncer);
    this.pool = pool;
    this.stats = stats;
    this.pooler = parsed.pgbouncer;
    this.directUrl = options.directUrl;
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    const client = await checkout(this.pool);
    this.stats.transactions++;
    let broken = false;
    // pg-pool removes its error listener while a client is checked out. If the server goes away between two
    // statements of this transaction, the client emits 'error' with no listener and the whole process dies
    // (issue 9: found by stopping PostgreSQL under load). Listen, and discard the client on release.
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
      throw err;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** A one-connection database on DIRECT_DATABASE_URL (what needs a session), with this one's timeouts; the caller
   *  closes it. */
  openDirect(): PostgresDb {
    if (!this.directUrl) throw new Error('no DIRECT_DATABASE_URL');
    return new PostgresDb(this.directUrl, { connectTimeoutMs: this.options.connectTimeoutMs, queryTimeoutMs: this.options.queryTimeoutMs, max: 1 });
  }

  onSchemaMissing(listener: () => void): () => void {
    return this.alarm.listen(listener);
  }

  poolStats(): PoolStats {
    return { max: this.pool.options.max ?? 0, total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async exec(script: string): Promise<void> {
    await this.pool.query(script);
  }

  private closing?: Promise<void>;

  /** Idempotent: the server and a test may both close the same database. */
  close(): Promise<void> {
    this.closing ??= this.pool.end();
    return this.closing;
  }
}

const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004', '53300']);

// 3D000 invalid_catalog_name (the database was dropped), 3F000 invalid_schema_name, 42P01 undefined_table (re-created
// empty, or never migrated): every statement fails until an operator restores the schema — an outage, not a bug
// in the request (issue 18: these were 500s while health said ready).
const SCHEMA_MISSING = new Set(['3D000', '3F000', '42P01']);

const LOST = /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection closed/i;

export function postgresErrorInfo(err: unknown): DbErrorInfo | undefined {
  const e = err as { code?: unknown; constraint?: unknown; message?: unknown };
  // pg raises a lost connection as a plain Error with no code ("Connection terminated unexpectedly"):
  // still the database being away, so a 503 rather than a 500 (issue 9).
  if (typeof e?.code !== 'string') return e instanceof Error && LOST.test(e.message) ? { uniqueViolation: false, unavailable: true } : undefined;
  if (e.code === '23505') {
    return { uniqueViolation: true, target: typeof e.constraint === 'string' ? e.constraint : undefined, unavailable: false };
  }
  // 22021 character_not_in_repertoire (a NUL in a text parameter), 22P05 untranslatable_character.
  if (e.code === '22021' || e.code === '22P05') return { uniqueViolation: false, unavailable: false, invalidText: true };
  if (SCHEMA_MISSING.has(e.code)) return { uniqueViolation: false, unavailable: true, schemaMissing: true };
  if (UNAVAILABLE.has(e.code) || ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(e.code)) {
    return { uniqueViolation: false, unavailable: true };
  }
  if (LOST.test(String(e.message ?? ''))) {
    return { uniqueViolation: false, unavailable: true };
  }
  return /^[0-9A-Z]{5}$/.test(e.code) ? { uniqueViolation: false, unavailable: false } : undefined;
}
