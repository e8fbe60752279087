// Database failures reduced to what a client should hear: a lost PostgreSQL connection is a 503 even when pg raises
// it without a code; a NUL in a text parameter is the caller's 400 on both dialects. SPEC §4.4: everything that means
// "the database cannot serve us now" is one DatabaseUnavailable, classified once (src/server/db/errors.ts), whether it
// comes from pg, better-sqlite3 or Prisma Client, and every surface answers it 503 `database unavailable` + Retry-After.
import { describe, expect, it } from 'vitest';
import {
  asDatabaseError,
  DatabaseUnavailable,
  dbErrorInfo,
  isDatabaseUnavailable,
} from '../../../src/server/db/errors';
import { SqliteDb } from '../../../src/server/db/drivers/sqlite';
import { InvalidTextError } from '../../../src/server/db/types';
import { toDomainError } from '../../../src/server/domain/errors/domain-error';

describe('dbErrorInfo', () => {
  it('treats pg\'s codeless "Connection terminated unexpectedly" as the database being unavailable', () => {
    expect(dbErrorInfo(new Error('Connection terminated unexpectedly'))?.unavailable).toBe(true);
    expect(toDomainError(new Error('Connection terminated unexpectedly')).code).toBe('database_unavailable');
  });

  it('keeps an ordinary codeless error internal', () => {
    expect(dbErrorInfo(new Error('boom'))).toBeUndefined();
    expect(toDomainError(new Error('boom')).code).toBe('internal');
  });

  it('maps PostgreSQL 22021 (a NUL in a text parameter) to a 400 invalid payload', () => {
    const err = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    expect(dbErrorInfo(err)?.invalidText).toBe(true);
    expect(toDomainError(err).http).toBe(400);
  });
});

describe('a missing database or table is an outage (it was a 500 while health said ready)', () => {
  it.each([
    ['3D000', 'database "t_x" does not exist'],
    ['3F000', 'schema "public" does not exist'],
    ['42P01', 'relation "api_tokens" does not exist'],
  ])('maps PostgreSQL %s to 503 database unavailable and flags the schema as missing', (code, message) => {
    const err = Object.assign(new Error(message), { code });
    expect(dbErrorInfo(err)).toMatchObject({ unavailable: true, schemaMissing: true });
    expect(toDomainError(err).http).toBe(503);
    expect(toDomainError(err).body()).toEqual({ error: 'database unavailable' });
  });

  it('maps SQLite "no such table" the same way, and leaves other SQLite errors alone', async () => {
    const db = new SqliteDb(':memory:', ':memory:');
    const missing = await db.query('SELECT * FROM api_tokens').catch((e: unknown) => e);
    expect(dbErrorInfo(missing)).toMatchObject({ unavailable: true, schemaMissing: true });
    expect(toDomainError(missing).http).toBe(503);
    const syntax = await db.query('SELEC 1').catch((e: unknown) => e);
    expect(dbErrorInfo(syntax)?.schemaMissing).toBeUndefined();
    expect(toDomainError(syntax).code).toBe('internal');
    await db.close();
  });
});

describe('SQLite refuses a NUL the way PostgreSQL does', () => {
  it('rejects the parameter before the statement runs, with the same 400', async () => {
    const db = new SqliteDb(':memory:', ':memory:');
    await db.exec('CREATE TABLE t (v text)');
    const err = await db.run('INSERT INTO t (v) VALUES ($1)', ['a\u0000b']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidTextError);
    expect(toDomainError(err).body()).toEqual({
      error: 'invalid payload: text must not contain NUL (U+0000) characters',
    });
    expect(await db.query('SELECT * FROM t')).toEqual([]);
    await db.close();
  });
});

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code, severity: 'FATAL' });
const sqliteError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('one DatabaseUnavailable for every way the database cannot serve us (SPEC §4.4)', () => {
  it.each([
    ['57P01', 'terminating connection due to administrator command'],
    ['57P02', 'terminating connection due to crash of another server process'],
    ['57P03', 'the database system is starting up'],
    ['08006', 'connection failure'],
    ['08001', 'could not connect'],
    ['08P01', 'protocol violation'],
    ['25006', 'cannot execute UPDATE in a read-only transaction'],
    ['53100', 'could not extend file: No space left on device'],
    ['53200', 'out of memory'],
    ['53300', 'too many connections for role "tether"'],
    ['58030', 'could not write to file'],
  ])('PostgreSQL %s (%s)', (code, message) => {
    const err = pgError(code, message);
    expect(isDatabaseUnavailable(err)).toBe(true);
    const wrapped = asDatabaseError(err);
    expect(wrapped).toBeInstanceOf(DatabaseUnavailable);
    expect((wrapped as Error).cause).toBe(err);
    const domain = toDomainError(wrapped);
    expect(domain.http).toBe(503);
    expect(domain.body()).toEqual({ error: 'database unavailable' });
    expect(domain.headers).toEqual({ 'retry-after': '1' });
  });

  it.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE'])('a socket failure (%s)', (code) => {
    expect(isDatabaseUnavailable(Object.assign(new Error(`connect ${code}`), { code }))).toBe(true);
  });

  it.each([
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_IOERR_FSYNC',
    'SQLITE_IOERR_SHORT_READ',
    'SQLITE_FULL',
    'SQLITE_READONLY',
    'SQLITE_READONLY_DBMOVED',
    'SQLITE_READONLY_RECOVERY',
    'SQLITE_BUSY',
    'SQLITE_BUSY_SNAPSHOT',
    'SQLITE_LOCKED',
    'SQLITE_CANTOPEN',
  ])('SQLite %s', (code) => {
    expect(isDatabaseUnavailable(sqliteError(code))).toBe(true);
    expect(toDomainError(asDatabaseError(sqliteError(code))).code).toBe('database_unavailable');
  });

  it("keeps the request's own errors what they are", () => {
    for (const err of [
      pgError('23505'),
      pgError('42601'),
      pgError('40001'),
      sqliteError('SQLITE_CONSTRAINT_UNIQUE', 'UNIQUE constraint failed: t.x'),
      sqliteError('SQLITE_ERROR', 'near "SELEC": syntax error'),
    ]) {
      expect(isDatabaseUnavailable(err)).toBe(false);
      expect(asDatabaseError(err)).toBe(err);
    }
  });

  // The shapes Prisma Client 7 threw in the integration tests (tests/integration/hostile/database-down.test.ts).
  it.each([
    [
      'PostgreSQL refused the connection',
      {
        code: 'P2037',
        meta: {
          driverAdapterError: {
            name: 'DriverAdapterError',
            cause: { originalCode: '53300', kind: 'TooManyConnections' },
          },
        },
      },
    ],
    [
      'a read-only PostgreSQL node',
      {
        code: 'P2039',
        meta: {
          driverAdapterError: {
            name: 'DriverAdapterError',
            cause: { originalCode: '25006', kind: 'postgres', code: '25006' },
          },
        },
      },
    ],
    [
      'a full SQLite disk',
      {
        code: 'P2039',
        meta: {
          driverAdapterError: { name: 'DriverAdapterError', cause: { originalCode: 'SQLITE_FULL', kind: 'sqlite' } },
        },
      },
    ],
    [
      'PostgreSQL unreachable',
      {
        code: 'P2039',
        meta: { driverAdapterError: { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable' } } },
      },
    ],
    ["Prisma's own code for an unreachable server", { code: 'P1001', meta: {} }],
    ['a bare DriverAdapterError', { name: 'DriverAdapterError', cause: { kind: 'ConnectionClosed' } }],
  ])('Prisma Client: %s', (_what, shape) => {
    const err = Object.assign(new Error('prisma'), shape);
    expect(isDatabaseUnavailable(err)).toBe(true);
    expect(toDomainError(err).body()).toEqual({ error: 'database unavailable' });
  });

  it("reads Prisma's unique violations, as it always did", () => {
    const err = Object.assign(new Error('prisma'), {
      code: 'P2002',
      meta: {
        driverAdapterError: {
          name: 'DriverAdapterError',
          cause: {
            kind: 'UniqueConstraintViolation',
            constraint: { fields: ['workspace_id', 'external_id'] },
            table: 'tasks',
          },
        },
      },
    });
    expect(dbErrorInfo(err)).toMatchObject({
      uniqueViolation: true,
      target: 'tasks.workspace_id, tasks.external_id',
      unavailable: false,
    });
  });
});
