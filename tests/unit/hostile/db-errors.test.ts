// Database failures reduced to what a client should hear (issue 9): a lost PostgreSQL connection is a 503 even
// when pg raises it without a code; a NUL in a text parameter is the caller's 400 on both dialects.
import { describe, expect, it } from 'vitest';
import { dbErrorInfo } from '../../../src/server/db/errors';
import { SqliteDb } from '../../../src/server/db/dialect/sqlite/driver';
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

describe('a missing database or table is an outage (issue 18: it was a 500 while health said ready)', () => {
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
    expect(toDomainError(err).body()).toEqual({ error: 'invalid payload: text must not contain NUL (U+0000) characters' });
    expect(await db.query('SELECT * FROM t')).toEqual([]);
    await db.close();
  });
});
