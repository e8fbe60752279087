// What every `tether` command gets: the database (opened on first use, closed by main), output that
// honours `--json`, and stdin. Commands stay a few lines each.
import type { Command } from 'commander';
import { loadConfig } from '../server/config';
import { openDb } from '../server/db/dialect';
import { schemaVersion } from '../server/db/migrate';
import { Store } from '../server/db/store';
import type { Db } from '../server/db/types';

/** An error meant for the operator: printed as one line, exit code 1. */
export class CliError extends Error {}

export interface CliContext {
  /** The database named by DATABASE_URL (default: the SQLite file under ./data), migrated unless `raw`. */
  db(opts?: { raw?: boolean }): Promise<Db>;
  /** The data layer over `db()` (its repositories, Prisma Client for the cold paths). */
  store(): Promise<Store>;
  /** Prints `data` as JSON under `--json`, otherwise the human-readable text. */
  print(data: unknown, human: string): void;
  /** Everything on stdin (for --password-stdin). */
  readStdin(): Promise<string>;
  close(): Promise<void>;
}

export function createCliContext(program: Command): CliContext {
  let db: Db | undefined;
  let store: Store | undefined;
  return {
    async db(opts = {}) {
      db ??= openDb(loadConfig().databaseUrl);
      // Reach the database first, so "unreachable" is not reported as "not migrated" (schemaVersion swallows errors).
      await db.one('SELECT 1 AS ok');
      if (!opts.raw && (await schemaVersion(db)) === 0) throw new CliError('the database has no schema yet; run `tether migrate` first');
      return db;
    },
    async store() {
      const migrated = await this.db();
      store ??= new Store(migrated);
      return store;
    },
    print(data, human) {
      process.stdout.write(program.opts().json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
    },
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async close() {
      // The store owns the driver once made: closing it disconnects Prisma Client and then the driver.
      await (store ?? db)?.close();
      store = undefined;
      db = undefined;
    },
  };
}

/** Repeatable option collector: `--workspace a --workspace b` → ['a', 'b']. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** A padded text table for human output. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
