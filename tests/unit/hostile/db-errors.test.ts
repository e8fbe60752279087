// Database failures reduced to what a client should hear (issue 9): a lost PostgreSQL connection is a 503 even
// when pg raises it without a code; a NUL in a text parameter is the caller's 400 on both dialects.
import { describe, expect, it } from 'vitest';
import { dbErrorInfo } from '../../../src/server/db/dialect';
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
