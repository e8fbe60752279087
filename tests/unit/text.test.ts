// SPEC §10: the one schema of stored text (src/server/domain/text.ts) and the words every surface reports it in.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validationError } from '../../src/server/domain/tasks/create-input';
import { characterCount, storedText } from '../../src/server/domain/text';

const refusal = (schema: z.ZodType, value: unknown) => {
  const r = z.object({ field: schema }).safeParse({ field: value });
  return r.success ? undefined : validationError(r.error).message;
};

describe('characterCount', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['\u{1f680}', 1], // a surrogate pair is one character
    ['a\u{10ffff}b', 3],
    ['\ud800', 1], // a lone surrogate still counts (it is refused anyway)
    ['\udc00\ud800', 2], // low then high is not a pair
    ['\ud800\ud83d\ude80', 2],
  ])('%j has %i', (s, n) => expect(characterCount(s)).toBe(n));
});

describe('storedText', () => {
  const text = storedText(5);
  it('keeps well-formed text up to the limit, counted in code points', () => {
    expect(text.parse('\u{1f680}'.repeat(5))).toBe('\u{1f680}'.repeat(5));
    expect(refusal(text, 'abcdef')).toBe('invalid request: field: must be 5 characters or fewer');
  });
  it('refuses a lone surrogate and NUL as text that cannot be stored, naming the field', () => {
    for (const s of ['\ud800', '\udfff', 'a\udbffb', '\ude00\ud83d'])
      expect(refusal(text, s)).toBe('invalid payload: field must be well-formed Unicode');
    expect(refusal(text, 'a\u0000')).toBe('invalid payload: field must not contain NUL (U+0000) characters');
  });
  it('trims before it counts, when asked, and says maxLength in its JSON Schema', () => {
    expect(storedText(3, { trim: true }).parse('  abc  ')).toBe('abc');
    expect(z.toJSONSchema(storedText(7))).toMatchObject({ type: 'string', maxLength: 7 });
  });
});

describe('validationError names every length limit the same way', () => {
  it('a plain .max() string or list', () => {
    expect(refusal(z.string().max(3), 'abcd')).toBe('invalid request: field: must be 3 characters or fewer');
    expect(refusal(z.array(z.string()).max(1), ['a', 'b'])).toBe('invalid request: field: must have 1 items or fewer');
  });
});
