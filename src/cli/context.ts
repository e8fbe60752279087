// What every `tether` command gets: the services over the database (built on first use, here and nowhere else,
// closed by main), output that honours `--json`, and stdin. Commands stay a few lines each.
import type { Command } from 'commander';
import { userInfo } from 'node:os';
import type { Actor } from '../server/domain/access';
import { schemaVersion } from '../server/db/schema/migrate';
import type { Store } from '../server/db/store';
import { loadConfig } from '../server/config';
import { createServices } from '../server/create-services';
import { createLogger } from '../server/observability/logger';
import type { Services } from '../server/services';

/**
 * Who the CLI acts as in audit records (release history, legacy resolutions, attestation requests): the system,
 * named after the operating-system user who ran it (`cli:root`). Whoever can run the CLI can reach the database.
 */
export function cliActor(): Actor {
  let name = 'unknown';
  try {
    name = userInfo().username || name;
  } catch {
    // no passwd entry (some containers): the audit still says it came through the CLI
  }
  return {
    kind: 'system',
    id: `cli:${name}`,
    label: `cli (${name})`,
    global: true,
    roles: new Map(),
    grants: new Set(),
    scopes: new Set(),
  };
}

/** An error meant for the operator: printed as one line, exit code 1. */
export class CliError extends Error {}

export interface CliContext {
  /** Services (config, store, …) over the database named by DATABASE_URL (default: the SQLite file under ./data);
   *  refuses a database with no schema unless `raw`. */
  services(opts?: { raw?: boolean }): Promise<Services>;
  /** The store of `services()`: what most commands need. */
  store(opts?: { raw?: boolean }): Promise<Store>;
  /** Prints `data` as JSON under `--json`, otherwise the human-readable text. */
  print(data: unknown, human: string): void;
  /** Everything on stdin (for --password-stdin). */
  readStdin(): Promise<string>;
  /** The exit code once the command has run without an error (a command may report a state, e.g. not ready, as 1). */
  exitCode: number;
  close(): Promise<void>;
}

/** Where a command's answer goes and what --password-stdin reads: the process's own stdout and stdin, or a caller's. */
export interface CliIo {
  write(text: string): void;
  readStdin(): Promise<string>;
}

export const processIo: CliIo = {
  write: (text) => void process.stdout.write(text),
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

export function createCliContext(program: Command, io: CliIo = processIo): CliContext {
  let built: Services | undefined;
  const services = async (opts: { raw?: boolean } = {}) => {
    // The CLI's stdout is its answer (`--json` included): anything the services log goes to stderr.
    if (!built) {
      const config = loadConfig();
      built = createServices({ config, log: createLogger(config.log, process.stderr) });
    }
    // Reach the database first, so "unreachable" is not reported as "not migrated" (schemaVersion swallows errors).
    await built.store.ping();
    if (!opts.raw && (await schemaVersion(built.store.driver)) === 0)
      throw new CliError('the database has no schema yet; run `tether migrate` first');
    return built;
  };
  return {
    services,
    exitCode: 0,
    store: async (opts) => (await services(opts)).store,
    print(data, human) {
      io.write(program.opts().json ? `${JSON.stringify(data, null, 2)}\n` : `${human}\n`);
    },
    readStdin: () => io.readStdin(),
    async close() {
      await built?.store.close();
      built = undefined;
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
  return rows
    .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}
