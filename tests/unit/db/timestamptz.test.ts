// The PostgreSQL driver's timestamptz parser rewrites PostgreSQL's UTC text into the ISO form rows carry on both
// dialects; it must give exactly what `new Date(text).toISOString()` gives, for every form PostgreSQL can send.
import { describe, expect, it } from 'vitest';
import { isoFromTimestamptz } from '../../../src/server/db/drivers/postgres-timestamps';

const viaDate = (text: string) => new Date(text).toISOString();

describe('isoFromTimestamptz', () => {
  it('rewrites UTC text with 0–6 fraction digits, cutting to milliseconds as Date does', () => {
    for (const text of [
      '2026-12-01 07:03:11+00',
      '2026-12-01 07:03:11.1+00',
      '2026-12-01 07:03:11.12+00',
      '2026-12-01 07:03:11.123+00',
      '2026-12-01 07:03:11.1239+00',
      '2026-12-01 07:03:11.999999+00',
      '1970-01-01 00:00:00+00',
      '2000-02-29 23:59:59.000001+00',
    ]) {
      expect(isoFromTimestamptz(text), text).toBe(viaDate(text));
    }
  });

  it('agrees with Date on thousands of generated instants', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 5000; i++) {
      const ms = next() * 2000 + (next() % 1000);
      const micros = String(next() % 1_000_000)
        .padStart(6, '0')
        .slice(0, 1 + (next() % 6));
      const text = `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}${next() % 7 === 0 ? '' : `.${micros}`}+00`;
      expect(isoFromTimestamptz(text), text).toBe(viaDate(text));
    }
  });

  it('leaves other offsets to Date (a session whose TimeZone is not UTC)', () => {
    for (const text of ['2026-12-01 12:33:11.5+05:30', '2026-12-01 02:03:11-05', '2026-06-01 09:03:11.25+02']) {
      expect(isoFromTimestamptz(text), text).toBe(viaDate(text));
    }
    expect(isoFromTimestamptz('2026-12-01 12:33:11.5+05:30')).toBe('2026-12-01T07:03:11.500Z');
  });
});
