// A PostgreSQL URL as libpq reads it (SPEC §12 "Production PostgreSQL"), for node-postgres, which takes one host:
//
//   postgresql://user:secret@h1:5432,h2:5432/tether?target_session_attrs=read-write&pgbouncer=true
//
// - several hosts, each with an optional port (libpq's multi-host form), tried in the order given;
// - `target_session_attrs` (libpq's name and values): which of them Tether may use. `any` (libpq's default) takes the
//   first that answers — right for several poolers in front of one primary; `read-write` (not a standby, not
//   read-only) and `primary` (not a standby) find the writable node of a cluster and follow it after a failover.
//   Tether writes on every path, so the values that pick a standby (`standby`, `read-only`, `prefer-standby`) are
//   refused rather than half-supported;
// - `pgbouncer=true` (Prisma's convention): the URL reaches PostgreSQL through PgBouncer in transaction pooling mode,
//   so no session state may outlive a transaction (driver.ts sends unnamed statements, migrations need
//   DIRECT_DATABASE_URL).
// Both parameters are Tether's (or libpq's) business, not node-postgres's: they are taken out of the URL it is given.

export type TargetSessionAttrs = 'any' | 'read-write' | 'primary';

export interface PostgresHost {
  host: string;
  port: number;
}

export interface PostgresUrl {
  /** The hosts in the URL's order; empty when the URL names none (node-postgres's defaults then apply). */
  hosts: PostgresHost[];
  targetSessionAttrs: TargetSessionAttrs;
  /** Reached through PgBouncer in transaction pooling mode (`pgbouncer=true`). */
  pgbouncer: boolean;
  /** What node-postgres is given: the URL with the first host only and without Tether's parameters. The pool
   *  connects each client to the host the topology chose (topology.ts). */
  connectionString: string;
}

export class PostgresUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PostgresUrlError';
  }
}

const SCHEME = /^(postgres(?:ql)?:\/\/)([^/?#]*)(.*)$/is;
const ATTRS: readonly string[] = ['any', 'read-write', 'primary'];
const WRITERLESS = ['standby', 'read-only', 'prefer-standby'];

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** Splits `user:pw@h1:5432,[::1]:5433` into the user part and the hosts. Throws PostgresUrlError. */
function splitAuthority(authority: string): { userinfo: string; hostspecs: string[] } {
  const at = authority.lastIndexOf('@');
  const userinfo = at >= 0 ? authority.slice(0, at + 1) : '';
  const hostlist = authority.slice(at + 1);
  return { userinfo, hostspecs: hostlist === '' ? [] : hostlist.split(',') };
}

function parseHost(spec: string, defaultPort: number): PostgresHost {
  const m = /^(\[[^\]]+\]|[^:[\]]*)(?::(\d*))?$/.exec(spec);
  if (!m || m[1] === '') throw new PostgresUrlError(`host list: "${spec}" is not host[:port]`);
  const host = decodeURIComponent(m[1]!.replace(/^\[(.*)\]$/, '$1'));
  const port = m[2] ? Number(m[2]) : defaultPort;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new PostgresUrlError(`host list: "${spec}" has no valid port`);
  return { host, port };
}

/** Parses a `postgresql://` URL in libpq's form (see the file header). Throws PostgresUrlError with a reason. */
export function parsePostgresUrl(url: string): PostgresUrl {
  const m = SCHEME.exec(url.trim());
  if (!m) throw new PostgresUrlError('must start with postgresql://');
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
  const q = rest.indexOf('?');
  const path = q >= 0 ? rest.slice(0, q) : rest;
  const params = new URLSearchParams(q >= 0 ? rest.slice(q + 1) : '');

  const attrs = (params.get('target_session_attrs') ?? 'any').toLowerCase();
  if (WRITERLESS.includes(attrs)) {
    throw new PostgresUrlError(
      `target_session_attrs=${attrs} picks a standby, and Tether writes on every path: use read-write (or primary, or any)`,
    );
  }
  if (!ATTRS.includes(attrs))
    throw new PostgresUrlError(`target_session_attrs must be any, read-write or primary (got "${attrs}")`);
  const bouncer = (params.get('pgbouncer') ?? 'false').toLowerCase();
  if (bouncer !== 'true' && bouncer !== 'false')
    throw new PostgresUrlError(`pgbouncer must be true or false (got "${bouncer}")`);
  const ours = params.has('target_session_attrs') || params.has('pgbouncer');
  params.delete('target_session_attrs');
  params.delete('pgbouncer');

  const portParam = params.get('port');
  const defaultPort = portParam && /^\d+$/.test(portParam) ? Number(portParam) : 5432;
  const { userinfo, hostspecs } = splitAuthority(authority);
  const hosts = hostspecs.map((h) => parseHost(h, defaultPort));
  if (hosts.length === 0 && attrs !== 'any')
    throw new PostgresUrlError(`target_session_attrs=${attrs} needs the hosts named in the URL`);
  // The query as it was unless a parameter was taken out (so the driver reads exactly what the operator wrote).
  const query = ours ? params.toString() : q >= 0 ? rest.slice(q + 1) : '';
  return {
    hosts,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    pgbouncer: bouncer === 'true',
    connectionString: `${scheme}${userinfo}${hostspecs[0] ?? ''}${path}${query ? `?${query}` : ''}`,
  };
}

/**
 * The URL for a log line: no password and no query parameters (they can carry credentials: `password`, `sslkey`),
 * except the two that say how Tether connects. `postgresql://tether:secret@h1,h2/db?target_session_attrs=read-write`
 * → `postgresql://tether@h1:5432,h2:5432/db?target_session_attrs=read-write`.
 */
export function describePostgresUrl(url: string): string {
  let parsed: PostgresUrl;
  try {
    parsed = parsePostgresUrl(url);
  } catch {
    return 'postgresql://(unparseable url)';
  }
  const m = SCHEME.exec(url.trim())!;
  const { userinfo } = splitAuthority(m[2]!);
  const user = userinfo.slice(0, -1).split(':')[0] ?? '';
  const rest = m[3]!;
  const path = rest.split('?')[0]!;
  const hosts = parsed.hosts
    .map((h) => `${h.host.includes(':') ? `[${h.host}]` : encodeURIComponent(h.host)}:${h.port}`)
    .join(',');
  const shown = new URLSearchParams();
  if (parsed.targetSessionAttrs !== 'any') shown.set('target_session_attrs', parsed.targetSessionAttrs);
  if (parsed.pgbouncer) shown.set('pgbouncer', 'true');
  const query = shown.toString();
  return `${m[1]!.toLowerCase()}${user ? `${user}@` : ''}${hosts}${path}${query ? `?${query}` : ''}`;
}
