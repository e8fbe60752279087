// SPEC §2.1: normalization of the raw external id — an exhaustive table and properties (fast-check).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeExternalId, requireExternalId } from '../../../src/server/domain/identity/normalize';

const CONTROL = 'invalid external_id: control characters are not allowed';
const LENGTH = 'invalid external_id: must be 255 UTF-8 bytes or fewer';

const table: Array<[string, unknown, string | undefined | { error: string }]> = [
  ['absent', undefined, undefined],
  ['null', null, undefined],
  ['empty', '', undefined],
  ['spaces only', '   ', undefined],
  ['plain', 'ext-1', 'ext-1'],
  ['case kept', 'EXT-1', 'EXT-1'],
  ['trims ASCII spaces', '  ext-1  ', 'ext-1'],
  ['trims U+00A0', '\u00a0ext\u00a0', 'ext'],
  ['trims U+0085? no: U+0085 is C1, not ASCII control; it is White_Space', '\u0085ext\u0085', 'ext'],
  ['trims U+3000', '\u3000ext\u3000', 'ext'],
  ['trims U+2028 and U+2029', '\u2028ext\u2029', 'ext'],
  ['keeps U+FEFF (not White_Space)', '\ufeffext\ufeff', '\ufeffext\ufeff'],
  ['keeps U+200B (not White_Space)', '\u200bext\u200b', '\u200bext\u200b'],
  ['keeps inner spaces', 'a  b', 'a  b'],
  ['NFC and NFD differ', 'caf\u00e9', 'caf\u00e9'],
  ['NFD kept byte-for-byte', 'cafe\u0301', 'cafe\u0301'],
  ['only blanks of all kinds', ' \u00a0\u3000\u0085 ', undefined],
  ['trailing newline is an error, not trimmed', 'ext-1\n', { error: CONTROL }],
  ['a lone tab', '\t', { error: CONTROL }],
  ['NUL', 'a\u0000b', { error: CONTROL }],
  ['U+001F', 'a\u001fb', { error: CONTROL }],
  ['DEL', 'a\u007f', { error: CONTROL }],
  ['255 ASCII bytes', 'x'.repeat(255), 'x'.repeat(255)],
  ['256 ASCII bytes', 'x'.repeat(256), { error: LENGTH }],
  ['63 four-byte characters + 3 bytes = 255', `${'😀'.repeat(63)}abc`, `${'😀'.repeat(63)}abc`],
  ['63 four-byte characters + 4 bytes = 256', `${'😀'.repeat(63)}abcd`, { error: LENGTH }],
  ['64 four-byte characters = 256', '😀'.repeat(64), { error: LENGTH }],
  ['85 three-byte characters = 255', '€'.repeat(85), '€'.repeat(85)],
  ['length counted after trimming', `  ${'x'.repeat(255)}  `, 'x'.repeat(255)],
  ['a control character is an error even when the rest is long', `${'x'.repeat(300)}\n`, { error: CONTROL }],
];

describe('normalizeExternalId (SPEC §2.1)', () => {
  for (const [name, input, expected] of table) {
    it(name, () => {
      if (typeof expected === 'object' && expected !== null) {
        expect(() => normalizeExternalId(input)).toThrow(expected.error);
      } else {
        expect(normalizeExternalId(input)).toBe(expected);
      }
    });
  }

  it('refuses a non-string value as invalid payload', () => {
    expect(() => normalizeExternalId(42)).toThrow('invalid payload');
    expect(() => normalizeExternalId({})).toThrow('invalid payload');
  });

  it('refuses a lone surrogate (it has no UTF-8 spelling)', () => {
    expect(() => normalizeExternalId('a\ud800b')).toThrow('invalid payload');
  });

  it('lookup and release require an identity', () => {
    expect(() => requireExternalId('  ')).toThrow('invalid external_id: external_id is required');
    expect(() => requireExternalId(undefined)).toThrow('invalid external_id: external_id is required');
    expect(requireExternalId(' a ')).toBe('a');
  });
});

describe('normalization properties', () => {
  const anyString = fc.string({ unit: 'binary', maxLength: 300 });

  it('is idempotent: normalizing a normalized value returns it unchanged', () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        let once: string | undefined;
        try {
          once = normalizeExternalId(raw);
        } catch {
          return true;
        }
        if (once === undefined) return true;
        return normalizeExternalId(once) === once;
      }),
      { numRuns: 2000 },
    );
  });

  it('never accepts a value containing an ASCII control character', () => {
    const withControl = fc
      .tuple(anyString, fc.integer({ min: 0, max: 0x20 }), anyString)
      .map(([a, c, b]) => `${a}${String.fromCharCode(c === 0x20 ? 0x7f : c)}${b}`);
    fc.assert(
      fc.property(withControl, (raw) => {
        expect(() => normalizeExternalId(raw)).toThrow(CONTROL);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepted values are at most 255 UTF-8 bytes and carry no edge White_Space', () => {
    fc.assert(
      fc.property(anyString, (raw) => {
        let v: string | undefined;
        try {
          v = normalizeExternalId(raw);
        } catch {
          return true;
        }
        if (v === undefined) return true;
        return Buffer.byteLength(v, 'utf8') <= 255 && !/^\p{White_Space}|\p{White_Space}$/u.test(v);
      }),
      { numRuns: 2000 },
    );
  });
});
