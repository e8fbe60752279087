import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { InvalidTextError, type Db, type DbStats, type PoolStats, type Sql } from '../types';
import { asDatabaseError } from '../errors';
import { Mutex } from './mutex';
import { BackgroundCheckpointer } from './sqlite-checkpointer';
import { SchemaAlarm } from './schema-alarm';
import { RememberedRows } from './sqlite-remembered';

// SQLite is one writer at a time. better-sqlite3 is synchronous, but our transactions span awaits, so every
// statement of this process goes through one mutex: nothing ever runs inside another caller's open transaction.
// Other processes are kept out by BEGIN IMMEDIATE and waited for by busy_timeout.
//
// Group commit. A commit is most of what a write costs here (it writes every page the transaction dirtied, whole, and
// a create dirties a leaf of 17 b-trees; consecutive creates dirty mostly the same leaves). So a transaction that
// ends does not commit at once: its work stays in the connection's open transaction (the *group*), and transactions
// that take the mutex before the group commits run in the same one, each inside a savepoint of its own — a failure
// rolls back to it and undoes only that transaction's writes. The group commits at the end of the event-loop turn
// (setImmediate), when it reaches MAX_GROUP, or before anything that needs the connection outside a transaction of
// ours (a script, a Prisma statement or transaction, the probe, close). Nothing is answered before its commit:
// every member's transaction() resolves only once the group's COMMIT succeeded, and rejects with the COMMIT's error
// when it failed (none of the group's writes landed). A statement outside a transaction that runs while a group is
// open runs inside it (it may read what the group wrote) and is answered only after the same commit, so no caller
// ever sees a write that might not commit; if that commit fails, the statement runs again alone (a full disk fails
// writes, not reads). Alone, a transaction commits one loop turn later than before.
//
// Remembered reads (`rememberedOne`). The Found path's identity lookup is the same read asked again and again (a retry
// storm, a webhook redelivered), and most of what it costs is SQLite finding and decoding the row. Its row is kept in
// memory and given again only while the database provably has not changed since it was read: one statement asks SQLite
// itself — `data_version` (moves when another connection commits: a second server or the CLI on the file) and
// `total_changes()` (every row this connection inserted, updated or deleted, by whatever path: the driver, Prisma, raw)
// — and both must equal what they were when the row was read, in the same statement as the row. The driver also counts
// the rows its own statements changed (`changed`), so after one of its writes the check is skipped and the row read
// again at once. The rows are bounded by count and by an estimate of their bytes (sqlite-remembered.ts). Only rows read
// outside any transaction are kept (never one a group has not committed yet), only found rows (a miss is always read
// again), none is given while the connection is inside a transaction, and rows are kept only once REMEMBER_AFTER reads
// have passed since the last change this connection knows of: while creates and other writes keep coming, every kept
// row would be dropped before it is asked again (and each would have cost the garbage collector a promotion), so under
// writes nothing is kept and a Found reads the file as before. Either way a Found is one statement, and no write.

type Param = string | number | bigint | Buffer | null;

/**
 * WAL pages after which a commit checkpoints (copies the WAL back into the database file and syncs both). SQLite's
 * default is 1,000: a zero-step create writes ~18 pages, so a commit checkpointed every ~55 creates — ~9 % of the
 * samples in a profile of sequential creates, most of it writing the same pages again (each b-tree's last leaf) and
 * two fsyncs. At 8,000 a checkpoint comes 8× less often and writes a page once however many commits changed it: in
 * process (bench/sqlite-create-cost.ts) ~15–25 % less CPU per Created; lookups at 200,000 tasks unchanged. The price:
 * the WAL file grows to ~33 MB (8,000 frames of a 4 KB page) and keeps that size, and opening the file after a crash
 * reads all of it. `wal_autocheckpoint` is a connection's own setting: another process on the file keeps its own.
 * Once a connection is busy, a thread of its own checkpoints more often than this (sqlite-checkpointer.ts), and this
 * threshold is the backstop the committing thread falls back on.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 8_000;

/**
 * The most transactions one commit carries (group commit, above): bounds how long the first member's answer waits
 * behind the others' work. Under 16 concurrent creates a group rarely reaches it; the loop turn ends it first.
 */
export const MAX_GROUP = 64;

/** Reads since the last known change before rows are kept (remembered reads, above): ~10 ms of a retry storm. */
export const REMEMBER_AFTER = 100;

/** The columns a remembered read adds to its row: what `data_version` and `total_changes()` were when it was read. */
export const READ_VERSION_COLUMNS =
  '(SELECT data_version FROM pragma_data_version) AS read_data_version, total_changes() AS read_changes';

/** The open transaction that ended transactions share until it commits. */
interface Group {
  /** Settles when the group's COMMIT succeeded or failed; every member and every statement run in it waits for it. */
  readonly committed: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
  /** Transactions whose work it carries. */
  members: number;
}

function openGroup(): Group {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const committed = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Every waiter handles the rejection; this only keeps a group nobody waits on from an unhandled-rejection report.
  committed.catch(() => {});
  return { committed, resolve, reject, members: 0 };
}

/** What one statement answered, and the commit it waits for when it ran inside an open group. */
interface Answer {
  rows: unknown[];
  changes: number;
  group?: Group;
}

function toParam(v: unknown): Param {
  if (v === undefined || v === null) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'boolean') return v ? 1 : 0;
  // Same refusal as PostgreSQL (see InvalidTextError), so a NUL behaves alike on both dialects.
  if (typeof v === 'string' && v.includes('\u0000')) throw new InvalidTextError();
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || Buffer.isBuffer(v)) return v;
  return JSON.stringify(v);
}

/**
 * `$1`-style SQL → positional `?`, and which parameter each `?` takes (`$2, $1, $2` → [1, 0, 1]). Worked out once per
 * statement text (the driver's statement cache keeps it): rewriting the text on every execution cost more than
 * binding.
 */
function adapt(text: string): { sql: string; order: number[] } {
  const order: number[] = [];
  const sql = text.replace(/\$(\d+)/g, (_m, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { sql, order };
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly stats: DbStats = { statements: 0, writes: 0, transactions: 0 };
  private readonly alarm = new SchemaAlarm();
  readonly raw: Database.Database;
  private readonly cache = new Map<
    string,
    { stmt: Database.Statement; reader: boolean; readonly: boolean; sql: string; order: number[] }
  >();
  /** Every statement of this process goes through it, Prisma's included (prisma/sqlite-adapter.ts). */
  readonly mutex = new Mutex();
  /** The open group (group commit, above), if any: the connection is inside its transaction. */
  private group: Group | undefined;
  /** COMMITs this connection sent (group commit: fewer than the transactions run under concurrency). */
  commits = 0;
  /** Checkpoints the WAL from a thread of its own once the connection is busy (sqlite-checkpointer.ts). */
  readonly checkpointer: BackgroundCheckpointer | undefined;
  /** Rows the driver's own statements changed (or may have: a script), as far as it knows (remembered reads, above). */
  private changed = 0;
  /** `rememberedOne` calls since `changed` or another connection last moved (REMEMBER_AFTER). */
  private quietReads = 0;
  private quietSince = 0;
  /** The rows `rememberedOne` keeps (their bounds are its fields; tests lower them). */
  readonly remembered = new RememberedRows();
  /** Quiet reads before rows are kept (REMEMBER_AFTER; tests lower it). */
  rememberAfter = REMEMBER_AFTER;
  /** Reads `rememberedOne` answered from memory. */
  rememberedHits = 0;
  /** `data_version` and `total_changes()` now (prepared on first use). */
  private versionCheck: Database.Statement<[], [unknown, unknown]> | undefined;

  poolStats(): PoolStats {
    const queued = this.mutex.queued;
    return { max: 1, total: 1, idle: queued === 0 ? 1 : 0, waiting: Math.max(0, queued - 1) };
  }

  constructor(
    readonly url: string,
    readonly file: string,
  ) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.raw = new Database(file);
    this.raw.pragma('journal_mode = WAL');
    this.raw.pragma('busy_timeout = 5000');
    this.raw.pragma('foreign_keys = ON');
    this.raw.pragma('synchronous = NORMAL');
    this.raw.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    // A group's members each run in a savepoint, whose journal keeps the original of every page the member changes
    // (~17 for a create); past 64 KB SQLite spills it to a temporary file, which in a group of 16 creates wrote ~100 KB
    // per create to disk. In memory it stays a few hundred KB at most (a group is at most MAX_GROUP members; the
    // journal is dropped when the member ends). Temporary tables and sorts live in memory as well.
    this.raw.pragma('temp_store = MEMORY');
    if (file !== ':memory:') this.checkpointer = new BackgroundCheckpointer(file);
  }

  private prepare(text: string, params: readonly unknown[]) {
    let entry = this.cache.get(text);
    if (!entry) {
      const { sql, order } = adapt(text);
      const stmt = this.raw.prepare(sql);
      entry = { stmt, reader: stmt.reader, readonly: stmt.readonly, sql, order };
      this.cache.set(text, entry);
    }
    const args = new Array<Param>(entry.order.length);
    for (let i = 0; i < args.length; i++) args[i] = toParam(params[entry.order[i]!]);
    return { entry, args };
  }

  /** Executes synchronously; callers hold the mutex. */
  private exe(text: string, params: readonly unknown[]): Answer {
    try {
      return this.send(text, params);
    } catch (err) {
      throw this.alarm.check(asDatabaseError(err));
    }
  }

  /** `raw.exec` with the driver's errors (transaction control, scripts). */
  private control(sql: string): void {
    try {
      this.raw.exec(sql);
    } catch (err) {
      throw this.alarm.check(asDatabaseError(err));
    }
  }

  private send(text: string, params: readonly unknown[]): Answer {
    const { entry, args } = this.prepare(text, params);
    this.stats.statements++;
    if (entry.reader) {
      const rows = entry.stmt.all(...args);
      if (!entry.readonly && rows.length > 0) this.changed++; // INSERT … RETURNING: a row per row written
      return { rows, changes: 0 };
    }
    this.stats.writes++;
    // Outside a transaction a writing statement commits on its own: counted as a transaction (the bench reports commits per request).
    if (!this.raw.inTransaction) this.stats.transactions++;
    const changes = entry.stmt.run(...args).changes;
    if (changes > 0) this.changed++;
    return { rows: [], changes };
  }

  private direct(): Sql {
    return {
      dialect: 'sqlite',
      query: async <T>(text: string, params: readonly unknown[] = []) => this.exe(text, params).rows as T[],
      one: async <T>(text: string, params: readonly unknown[] = []) => this.exe(text, params).rows[0] as T | undefined,
      run: async (text: string, params: readonly unknown[] = []) => this.exe(text, params).changes,
    };
  }

  async query<T>(text: string, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.statement(text, params)).rows as T[];
  }
  async one<T>(text: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.statement(text, params)).rows[0] as T | undefined;
  }
  async run(text: string, params: readonly unknown[] = []): Promise<number> {
    return (await this.statement(text, params)).changes;
  }

  /**
   * One statement outside a transaction of ours. Run inside an open group, it is answered once the group committed;
   * if that COMMIT failed, the statement's own work was undone with the group's, so it runs again alone — a read is
   * still answered when the disk is full and only writes fail, as without groups.
   */
  private async statement(text: string, params: readonly unknown[], keep?: string): Promise<Answer> {
    const answer = await this.mutex.run(() => this.kept(keep, this.autocommit(text, params)));
    if (!answer.group) return answer;
    try {
      await answer.group.committed;
      return answer;
    } catch {
      return this.mutex.run(() => {
        this.settle();
        return this.kept(keep, this.autocommit(text, params));
      });
    }
  }

  /**
   * The first row of a read, given again from memory while the database has not changed since it was read (remembered
   * reads, above). `key` names the row: the same key must always mean the same statement and parameters. `text` must
   * select READ_VERSION_COLUMNS beside the row's own; a read that finds no row is never kept.
   */
  async rememberedOne<T>(key: string, text: string, params: readonly unknown[]): Promise<T | undefined> {
    if (this.quietSince !== this.changed) this.forget();
    const kept = this.remembered.get(key);
    // Every kept row was read since `changed` last moved: `forget` runs first whenever it does.
    if (kept && !this.raw.inTransaction) {
      if (this.current(kept)) {
        this.rememberedHits++;
        return kept.row as T;
      }
      // Changed by another connection, or around the driver: no kept row can be trusted any more.
      this.forget();
    }
    const keep = ++this.quietReads > this.rememberAfter ? key : undefined;
    return (await this.statement(text, params, keep)).rows[0] as T | undefined;
  }

  /** The database changed: every kept row goes, and rows are kept again only after REMEMBER_AFTER quiet reads. */
  private forget(): void {
    this.quietSince = this.changed;
    this.quietReads = 0;
    this.remembered.clear();
  }

  /** Whether nothing has changed the database since `kept` was read: one statement (counted as one). */
  private current(kept: { dataVersion: unknown; changes: unknown }): boolean {
    this.versionCheck ??= this.raw
      .prepare<[], [unknown, unknown]>('SELECT data_version, total_changes() FROM pragma_data_version')
      .raw();
    this.stats.statements++;
    let now: [unknown, unknown] | undefined;
    try {
      now = this.versionCheck.get();
    } catch {
      return false; // the read itself will meet whatever is wrong, and report it
    }
    return now !== undefined && now[0] === kept.dataVersion && now[1] === kept.changes;
  }

  /** Keeps the row a read outside any transaction found (callers hold the mutex: nothing ran since). */
  private kept(key: string | undefined, answer: Answer): Answer {
    if (key === undefined || answer.group || this.raw.inTransaction) return answer;
    const row = answer.rows[0] as { read_data_version?: unknown; read_changes?: unknown } | undefined;
    this.remembered.keep(key, row, row?.read_data_version, row?.read_changes);
    return answer;
  }

  /**
   * A statement outside any transaction of ours: inside the open group when there is one (answered after its
   * commit), else on its own — never inside a transaction a failed ROLLBACK left open.
   */
  private autocommit(text: string, params: readonly unknown[]): Answer {
    const group = this.group;
    if (!group) {
      this.rollback();
      return this.exe(text, params);
    }
    try {
      return { ...this.exe(text, params), group };
    } catch (err) {
      // A failed statement undoes only itself, unless SQLite rolled the whole transaction back (SQLITE_FULL, I/O).
      if (!this.raw.inTransaction) this.failGroup(err);
      throw err;
    }
  }

  async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
    // The result is wrapped so the mutex is let go when the work is done, before the commit it waits for.
    const done = await this.mutex.run(async () => {
      this.stats.transactions++;
      return this.group ? this.member(fn, this.group) : this.first(fn);
    });
    await done.group.committed;
    return done.result;
  }

  /** The transaction that opens a group: BEGIN IMMEDIATE; a failure rolls it all back, as without groups. */
  private async first<T>(fn: (tx: Sql) => Promise<T>): Promise<{ result: T; group: Group }> {
    this.rollback();
    this.control('BEGIN IMMEDIATE');
    let result: T;
    try {
      result = await fn(this.direct());
    } catch (err) {
      // SQLite may already have rolled back (it does after SQLITE_FULL and some I/O errors). The error that caused
      // the rollback is the one reported, even if the ROLLBACK fails as well.
      this.rollback();
      throw err;
    }
    const group = openGroup();
    this.group = group;
    setImmediate(() => void this.mutex.run(() => this.settle(group)));
    return this.joined(result, group);
  }

  /** A transaction run inside an open group: a savepoint of its own, so a failure undoes only its writes. */
  private async member<T>(fn: (tx: Sql) => Promise<T>, group: Group): Promise<{ result: T; group: Group }> {
    this.control('SAVEPOINT member');
    let result: T;
    try {
      result = await fn(this.direct());
    } catch (err) {
      try {
        if (!this.raw.inTransaction) throw err;
        this.raw.exec('ROLLBACK TO member; RELEASE member');
      } catch {
        // SQLite rolled the whole transaction back, or cannot undo this member alone: the group's work is lost.
        this.failGroup(err);
      }
      throw err;
    }
    this.control('RELEASE member');
    return this.joined(result, group);
  }

  private joined<T>(result: T, group: Group): { result: T; group: Group } {
    group.members++;
    if (group.members >= MAX_GROUP) this.settle(group);
    return { result, group };
  }

  /**
   * Commits the open group (callers hold the mutex), or `group` only when it is still the open one. Every member and
   * statement of the group learns the outcome through `committed`.
   */
  private settle(group: Group | undefined = this.group): void {
    if (!group || this.group !== group) return;
    this.group = undefined;
    try {
      this.commits++;
      this.control('COMMIT');
    } catch (err) {
      this.rollback();
      group.reject(err);
      return;
    }
    this.checkpointer?.committed();
    group.resolve();
  }

  /** The group's transaction is gone (SQLite rolled it back): every member and statement of it fails with `err`. */
  private failGroup(err: unknown): void {
    const group = this.group;
    if (!group) return;
    this.group = undefined;
    this.rollback();
    group.reject(err);
  }

  /**
   * `fn` once the open group, if any, has committed — for a holder of the mutex about to use the connection outside
   * the driver's own statements and transactions (prisma/sqlite-adapter.ts). A failed commit is the group members'
   * error, not the caller's.
   */
  outsideGroup<T>(fn: () => T): T {
    this.settle();
    return fn();
  }

  /** Ends a transaction still open on the connection (ours, failed; or one a failed ROLLBACK left), if any. */
  private rollback(): void {
    if (!this.raw.inTransaction) return;
    try {
      this.raw.exec('ROLLBACK');
    } catch {
      // The disk may refuse even this; the next statement tries again before it runs.
    }
  }

  onSchemaMissing(listener: () => void): () => void {
    return this.alarm.listen(listener);
  }

  async exec(script: string): Promise<void> {
    await this.mutex.run(() => {
      this.settle();
      this.changed++; // a script may change the schema, which total_changes() does not count
      this.control(script);
    });
  }

  async probe(): Promise<void> {
    // A read proves the file opens; only a committed write proves it takes writes (a full disk, an I/O error or a
    // read-only file lets reads through). Rewriting `user_version` with its own value commits one page to the WAL and
    // changes nothing anyone reads (Tether does not use it). Not counted in `stats`: those are the requests' own.
    await this.mutex.run(() => {
      this.settle();
      try {
        const version = Number(this.raw.pragma('user_version', { simple: true }));
        this.raw.pragma(`user_version = ${version}`);
      } catch (err) {
        throw this.alarm.check(asDatabaseError(err));
      }
    });
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    await this.mutex.run(() => {
      this.settle();
      if (this.raw.open) this.raw.close();
    });
  }
}
