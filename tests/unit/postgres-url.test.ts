// SPEC §12 "Production PostgreSQL": libpq's URL form — several hosts, target_session_attrs, pgbouncer=true — read the
// way libpq reads it, handed to node-postgres as one host without Tether's parameters, and logged without secrets.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/server/config';
import { describePostgresUrl, parsePostgresUrl } from '../../src/server/db/drivers/postgres-url';
import { describeDatabase } from '../../src/server/main';

describe('parsePostgresUrl', () => {
  it('reads several hosts in order, each with its own port or the default', () => {
    const u = parsePostgresUrl(
      'postgresql://tether:pw@h1:5433,h2,[::1]:6000/tether?target_session_attrs=read-write&sslmode=require',
    );
    expect(u.hosts).toEqual([
      { host: 'h1', port: 5433 },
      { host: 'h2', port: 5432 },
      { host: '::1', port: 6000 },
    ]);
    expect(u.targetSessionAttrs).toBe('read-write');
    expect(u.pgbouncer).toBe(false);
    // node-postgres gets one host and keeps every parameter it understands; libpq's and Tether's own are taken out.
    expect(u.connectionString).toBe('postgresql://tether:pw@h1:5433/tether?sslmode=require');
  });

  it('takes pgbouncer=true out of what the driver sees', () => {
    const u = parsePostgresUrl('postgres://u@pgb:6432/tether?pgbouncer=true');
    expect(u).toMatchObject({ pgbouncer: true, targetSessionAttrs: 'any', hosts: [{ host: 'pgb', port: 6432 }] });
    expect(u.connectionString).toBe('postgres://u@pgb:6432/tether');
  });

  it('keeps a single-host URL as it was (libpq default: any session)', () => {
    const u = parsePostgresUrl('postgresql://u:p@db.internal:5432/tether');
    expect(u).toMatchObject({
      targetSessionAttrs: 'any',
      pgbouncer: false,
      connectionString: 'postgresql://u:p@db.internal:5432/tether',
    });
  });

  it.each([
    ['postgresql://h1,h2/db?target_session_attrs=standby', /picks a standby/],
    ['postgresql://h1,h2/db?target_session_attrs=prefer-standby', /picks a standby/],
    ['postgresql://h1,h2/db?target_session_attrs=read-only', /picks a standby/],
    ['postgresql://h1/db?target_session_attrs=writable', /must be any, read-write or primary/],
    ['postgresql://h1/db?pgbouncer=yes', /pgbouncer must be true or false/],
    ['postgresql://h1:5432,:5433/db', /not host\[:port\]/],
    ['postgresql://h1:99999/db', /no valid port/],
    ['postgresql:///db?target_session_attrs=primary', /needs the hosts/],
  ])('refuses %s with the reason', (url, reason) => {
    expect(() => parsePostgresUrl(url)).toThrow(reason);
  });
});

describe('the database in log lines', () => {
  it('shows every host of a multi-host URL and neither the password nor other parameters', () => {
    const url =
      'postgresql://tether:s3cret@h1:5432,h2:5433/tether?target_session_attrs=read-write&password=other&sslkey=/k';
    expect(describeDatabase(url)).toBe('postgresql://tether@h1:5432,h2:5433/tether?target_session_attrs=read-write');
    expect(describePostgresUrl('postgresql://u:p@pgb:6432/db?pgbouncer=true')).toBe(
      'postgresql://u@pgb:6432/db?pgbouncer=true',
    );
    expect(describeDatabase('file:/srv/tether.db')).toBe('/srv/tether.db');
  });
});

describe('configuration', () => {
  it('accepts a multi-host DATABASE_URL and a DIRECT_DATABASE_URL beside a pooler URL', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgresql://u@pgb1:6432,pgb2:6432/tether?pgbouncer=true',
      DIRECT_DATABASE_URL: 'postgresql://u@db1:5432,db2:5432/tether?target_session_attrs=read-write',
    });
    expect(c.databaseUrl).toBe('postgresql://u@pgb1:6432,pgb2:6432/tether?pgbouncer=true');
    expect(c.directDatabaseUrl).toBe('postgresql://u@db1:5432,db2:5432/tether?target_session_attrs=read-write');
    expect(loadConfig({}).directDatabaseUrl).toBeNull();
  });

  it.each([
    [
      'DATABASE_URL',
      { DATABASE_URL: 'postgresql://u:hunter2@h1,h2/db?target_session_attrs=standby' },
      /picks a standby/,
    ],
    [
      'DIRECT_DATABASE_URL',
      {
        DATABASE_URL: 'postgresql://u@pgb/db?pgbouncer=true',
        DIRECT_DATABASE_URL: 'postgresql://u:hunter2@pgb/db?pgbouncer=true',
      },
      /not PgBouncer/,
    ],
    ['DIRECT_DATABASE_URL', { DIRECT_DATABASE_URL: 'postgresql://u@db/tether' }, /only for a PostgreSQL DATABASE_URL/],
  ])('refuses a bad %s in one line, without the password', (name, env, reason) => {
    let err: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(new RegExp(`^${name}: `));
    expect((err as Error).message).toMatch(reason);
    expect((err as Error).message).not.toContain('hunter2');
    expect((err as Error).message).not.toContain('\n');
  });
});
