// Which PostgreSQL node the pool connects to (SPEC §12 "Production PostgreSQL"). node-postgres takes one host and has
// no `target_session_attrs` (brianc/node-postgres#1470, #2308: still open), so the pool is given a Client class of
// ours (pg-pool's documented `Client` option): each new connection asks the topology for the node to use and
// connects there with pg's own client, so everything checked out of the pool — the driver's statements and Prisma's
// (PrismaPg is built over the same pool) — follows the same node.
//
// Finding the node is libpq's rule: the URL's hosts in order, the first that satisfies `target_session_attrs`
// (probed in parallel, chosen in order; every new connection is checked again, as libpq does). The choice is kept
// until something says it is wrong:
//   - a connection to it fails, or one of its connections is lost (an 'error' event): it is forgotten and the next
//     connection looks again; when that finds another node, the connections still open to the old one are retired;
//   - it answers SQLSTATE 25006 (read-only transaction: a demoted primary), or a new connection to it no longer
//     satisfies `target_session_attrs`: it is forgotten and its connections are retired at once.
// Retired means ended: the idle ones now, the ones in use when they are given back (pg-pool's release with an error).
// A look that finds no acceptable node fails fast with SQLSTATE 08001 (the database is unavailable: callers answer
// 503) and the next look waits a backoff (doubling, capped), so a failover costs seconds of 503s and no restart.
import pg from 'pg';
import type { PostgresHost, PostgresUrl, TargetSessionAttrs } from './postgres-url';

/** Backoff between looks that found no acceptable node: first wait, and the cap. */
const BACKOFF_FIRST_MS = 50;
const BACKOFF_MAX_MS = 1000;

/** No host of the URL is acceptable now. 08001 is libpq's "could not connect": the database is unavailable. */
export class NoAcceptableHostError extends Error {
  readonly code = '08001';
  constructor(message: string) {
    super(message);
    this.name = 'NoAcceptableHostError';
  }
}

const READ_ONLY_TRANSACTION = '25006';

interface SessionState {
  standby: boolean;
  readOnly: boolean;
}

async function sessionState(client: pg.Client): Promise<SessionState> {
  const { rows } = await client.query<{ standby: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS standby, current_setting('transaction_read_only') AS read_only",
  );
  return { standby: rows[0]!.standby, readOnly: rows[0]!.read_only === 'on' };
}

/** Why a node does not satisfy `attrs`, or undefined when it does (libpq's definitions). */
function refusal(attrs: TargetSessionAttrs, s: SessionState): string | undefined {
  if (attrs === 'any') return undefined;
  if (s.standby) return 'in hot standby';
  if (attrs === 'read-write' && s.readOnly) return 'read-only';
  return undefined;
}

/** Points a not-yet-connected client at `host`. (pg reads host and port from the connection string when it is
 *  built, over any given beside it, so they are set afterwards, where pg's connect reads them.) */
function place(client: pg.Client, { host, port }: PostgresHost): void {
  client.host = host;
  client.port = port;
  const params = (client as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters;
  params.host = host;
  params.port = port;
}

const label = (h: PostgresHost) => `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`;

/** A pool connection, the node it is on, and whether it may still be used. */
interface Placed {
  node: number;
  /** Checked in to the pool (not in use). */
  idle: boolean;
  /** Its node no longer qualifies: ended when idle, and given back to the pool as broken when in use. */
  retired: boolean;
  destroy(): void;
}

/** Whether a connection checked out of the pool is on a node the topology has given up on (the driver takes
 *  another: driver.ts). */
export function isRetired(client: pg.PoolClient): boolean {
  return (client as unknown as { placed?: Placed }).placed?.retired === true;
}

export class Topology {
  readonly hosts: PostgresHost[];
  readonly attrs: TargetSessionAttrs;
  /** The node connections go to, once found; undefined means "look before the next connection". */
  private current: number | undefined;
  /** The node connections went to last, kept while looking again: if the look picks another, its connections go. */
  private previous: number | undefined;
  private looking: Promise<number> | undefined;
  private failures = 0;
  private retryAt = 0;
  private lastFailure: NoAcceptableHostError | undefined;
  private readonly open = new Set<Placed>();

  constructor(
    url: PostgresUrl,
    /** Connection settings for a probe (no host or port: each probe gets one). */
    private readonly probeConfig: pg.ClientConfig,
  ) {
    this.hosts = url.hosts;
    this.attrs = url.targetSessionAttrs;
  }

  /** Whether the pool needs us at all: one host that any session will do is node-postgres's own case. */
  static needed(url: PostgresUrl): boolean {
    return url.hosts.length > 1 || url.targetSessionAttrs !== 'any';
  }

  /** The node for the next connection: the known one, or the first acceptable one in the URL's order. */
  node(): Promise<number> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    if (this.lastFailure && Date.now() < this.retryAt) return Promise.reject(this.lastFailure);
    this.looking ??= this.look().finally(() => (this.looking = undefined));
    return this.looking;
  }

  private async look(): Promise<number> {
    const probes = this.hosts.map((h) => this.probe(h));
    const reasons: string[] = [];
    for (const [i, probe] of probes.entries()) {
      const why = await probe;
      if (why === undefined) {
        this.settle(i);
        return i;
      }
      reasons.push(`${label(this.hosts[i]!)} ${why}`);
    }
    this.failures++;
    this.retryAt = Date.now() + Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.failures - 1));
    this.lastFailure = new NoAcceptableHostError(
      `no database host accepts ${this.attrs === 'any' ? 'connections' : `${this.attrs} sessions`} (${reasons.join('; ')})`,
    );
    throw this.lastFailure;
  }

  /**
   * Connects to `host` once and says why it is not acceptable, or undefined when it is. Connecting and the check
   * together get the connect timeout: a node that does not answer (or a PgBouncer whose server does not) is
   * unreachable, not a reason to keep every new connection waiting.
   */
  private async probe(host: PostgresHost): Promise<string | undefined> {
    const client = new pg.Client(this.probeConfig);
    place(client, host);
    client.on('error', () => {});
    const ms = this.probeConfig.connectionTimeoutMillis ?? 5000;
    const timer = setTimeout(() => client.connection.stream.destroy(new Error(`no answer within ${ms} ms`)), ms);
    try {
      await client.connect();
      return refusal(this.attrs, await sessionState(client));
    } catch (err) {
      return `unreachable: ${(err as Error).message.split('\n')[0]}`;
    } finally {
      clearTimeout(timer);
      void client.end().catch(() => {});
    }
  }

  private settle(node: number): void {
    const before = this.previous;
    this.current = node;
    this.previous = node;
    this.failures = 0;
    this.lastFailure = undefined;
    if (before !== undefined && before !== node) this.retire(before);
  }

  /** A connection to `node` failed or was lost: look again before the next connection (the node may be gone). */
  lost(node: number): void {
    if (this.current === node) this.current = undefined;
  }

  /** `node` refuses what the URL asks for (read-only, in recovery): forget it and retire its connections now. */
  refused(node: number): void {
    this.lost(node);
    this.retire(node);
  }

  /**
   * Retires every pool connection to `node`: an idle one is ended now; one in use finishes what it is doing (on a
   * node that no longer qualifies a write fails with 25006, on a dead one the connection is already lost) and is
   * ended when it is given back.
   */
  private retire(node: number): void {
    for (const c of [...this.open]) {
      if (c.node !== node) continue;
      c.retired = true;
      if (c.idle) c.destroy();
    }
  }

  /** pg-pool's `Client` option: a pg Client that connects where the topology says and reports what it meets. */
  clientClass(): typeof pg.Client {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the class below is built per topology
    const topology = this;
    return class TopologyClient extends pg.Client {
      placed: Placed | undefined;
      private poolRelease: ((err?: Error | boolean) => void) | undefined;

      constructor(config?: string | pg.ClientConfig) {
        super(config);
        // Always listened to: a lost connection says the node may be gone. (It also keeps a connection that fails
        // while checked out from throwing an unhandled 'error'.)
        this.on('error', () => {
          if (this.placed) topology.lost(this.placed.node);
        });
        this.once('end', () => {
          if (this.placed) topology.open.delete(this.placed);
        });
        const query = this.query.bind(this) as (...args: unknown[]) => unknown;
        this.query = ((...args: unknown[]) => {
          const last = args.at(-1);
          if (typeof last === 'function') {
            args[args.length - 1] = (err: unknown, res: unknown) => {
              if (err) this.saw(err);
              (last as (e: unknown, r: unknown) => void)(err, res);
            };
            return query(...args);
          }
          const result = query(...args);
          if (result instanceof Promise) result.catch((err: unknown) => this.saw(err));
          return result;
        }) as typeof this.query;
      }

      // pg-pool sets `release` on every checkout and the user calls it to check the client back in; giving it an
      // error ends the client instead (pg-pool's documented contract). A retired client is given back that way.
      set release(fn: (err?: Error | boolean) => void) {
        this.poolRelease = fn;
        if (this.placed) this.placed.idle = false;
      }
      get release(): (err?: Error | boolean) => void {
        return (err) => {
          const placed = this.placed;
          if (placed) placed.idle = !err && !placed.retired;
          this.poolRelease!(err || (placed?.retired ? new Error('the database node no longer qualifies') : undefined));
        };
      }

      private saw(err: unknown): void {
        if (this.placed && (err as { code?: unknown })?.code === READ_ONLY_TRANSACTION && topology.attrs !== 'any')
          topology.refused(this.placed.node);
      }

      override connect(): Promise<pg.Client>;
      override connect(callback: (err: Error) => void): void;
      override connect(callback?: (err: Error) => void): Promise<pg.Client> | void {
        const opened = this.openOn().then(() => this);
        if (!callback) return opened;
        opened.then(() => callback(null as unknown as Error), callback);
      }

      private async openOn(): Promise<void> {
        const node = await topology.node();
        // pg-pool's connect timeout may have ended this client while the topology looked.
        if (this.connection.stream.destroyed) throw new Error('Connection terminated due to connection timeout');
        place(this, topology.hosts[node]!);
        try {
          await super.connect();
        } catch (err) {
          topology.lost(node);
          throw err;
        }
        const placed: Placed = { node, idle: false, retired: false, destroy: () => this.connection.stream.destroy() };
        this.placed = placed;
        topology.open.add(placed);
        if (topology.attrs === 'any') return;
        // libpq checks every connection, not only the probe: the node may have changed since it was found. A client
        // that fails here is not ended by pg-pool (it never joined the pool): end it ourselves.
        let why: string | undefined;
        try {
          why = refusal(topology.attrs, await sessionState(this));
        } catch (err) {
          placed.destroy();
          throw err;
        }
        if (why) {
          topology.refused(node);
          placed.destroy();
          throw new NoAcceptableHostError(`${label(topology.hosts[node]!)} is ${why}`);
        }
      }
    };
  }
}
