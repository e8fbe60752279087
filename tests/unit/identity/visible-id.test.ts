// SPEC §13: how the console spells an external id so a spoofed one cannot hide or garble the page, and the
// type-to-confirm that accepts that spelling. The visible form must be one-to-one (parse recovers the value).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  confirmsId,
  describeCodePoint,
  equivalentSpellings,
  hasHiddenCharacters,
  parseVisibleForm,
  readTypedEscapes,
  typedEscapes,
  visibleForm,
  visibleParts,
} from '../../../src/lib/visible-id';

const table: Array<[string, string, string]> = [
  ['plain ASCII is itself', 'jira:PROJ-1', 'jira:PROJ-1'],
  ['a plain space inside is itself', 'a b', 'a b'],
  ['right-to-left override', 'rtl:\u202Eevil', 'rtl:⟦U+202E⟧evil'],
  [
    'every bidi embedding, override, isolate and mark',
    '\u202A\u202B\u202C\u202D\u2066\u2067\u2068\u2069\u200E\u200F\u061C',
    '⟦U+202A⟧⟦U+202B⟧⟦U+202C⟧⟦U+202D⟧⟦U+2066⟧⟦U+2067⟧⟦U+2068⟧⟦U+2069⟧⟦U+200E⟧⟦U+200F⟧⟦U+061C⟧',
  ],
  [
    'zero-width space, joiners, word joiner, BOM',
    'zw\u200Bspace\u200C\u200D\u2060\uFEFF',
    'zw⟦U+200B⟧space⟦U+200C⟧⟦U+200D⟧⟦U+2060⟧⟦U+FEFF⟧',
  ],
  ['soft hyphen and Mongolian vowel separator', 'a\u00ADb\u180E', 'a⟦U+00AD⟧b⟦U+180E⟧'],
  ['no-break and ideographic spaces look like a space', 'a\u00A0b\u3000c\u2007', 'a⟦U+00A0⟧b⟦U+3000⟧c⟦U+2007⟧'],
  ['line and paragraph separators', 'a\u2028b\u2029', 'a⟦U+2028⟧b⟦U+2029⟧'],
  ['a C1 control (SPEC §2.1 refuses only ASCII ones)', 'a\u0085b\u009B', 'a⟦U+0085⟧b⟦U+009B⟧'],
  ['variation selector and Hangul filler (default ignorable)', 'a\uFE0Fb\u3164', 'a⟦U+FE0F⟧b⟦U+3164⟧'],
  ['a tag character outside the BMP', 'flag\u{E0067}', 'flag⟦U+E0067⟧'],
  ['the escape bracket itself, so no id can pose as an escape', 'x⟦U+202E⟧', 'x⟦U+27E6⟧U+202E⟧'],
  ['visible non-ASCII stays: accents, Hebrew, emoji', 'café-שלום-🎉', 'café-שלום-🎉'],
];

describe('visibleForm (SPEC §13)', () => {
  it.each(table)('%s', (_name, value, shown) => {
    expect(visibleForm(value)).toBe(shown);
    expect(hasHiddenCharacters(value)).toBe(shown !== value);
  });

  it('splits into plain runs and escapes that join back to the visible form, each escape knowing its character', () => {
    expect(visibleParts('rtl:\u202Eevil\u200B')).toEqual([
      { kind: 'text', text: 'rtl:' },
      { kind: 'escape', text: '⟦U+202E⟧', char: '\u202E' },
      { kind: 'text', text: 'evil' },
      { kind: 'escape', text: '⟦U+200B⟧', char: '\u200B' },
    ]);
  });

  it('shows no bidi control or invisible character raw, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (s) => {
        expect(visibleForm(s)).not.toMatch(/[\p{Bidi_Control}\p{Cf}\u200B\u00A0]/u);
      }),
    );
  });
});

describe('parseVisibleForm', () => {
  it.each(table.filter(([, v, shown]) => v !== shown))('recovers the value: %s', (_name, value, shown) => {
    expect(parseVisibleForm(shown)).toBe(value);
  });

  it('is one-to-one: parse(visible(s)) is s whenever s has anything escaped', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('\u202E', '\u200B', '⟦', '⟦U+0041⟧', '\u00A0', '\u{E0001}'))),
        (pieces) => {
          const s = pieces.join('');
          if (visibleForm(s) !== s) expect(parseVisibleForm(visibleForm(s))).toBe(s);
          else expect(parseVisibleForm(s)).toBeUndefined();
        },
      ),
    );
  });

  it('accepts only the exact spelling the console shows', () => {
    expect(parseVisibleForm('plain')).toBeUndefined();
    expect(parseVisibleForm('a⟦U+202e⟧')).toBeUndefined(); // lower-case hex is not how it is shown
    expect(parseVisibleForm('⟦U+0041⟧')).toBeUndefined(); // "A" is never escaped
    expect(parseVisibleForm('a⟦U+202E⟧\u202E')).toBeUndefined(); // a raw override next to an escape
    expect(parseVisibleForm('⟦U+110000⟧')).toBeUndefined(); // not a code point
    expect(parseVisibleForm('⟦U+27E6⟧')).toBe('⟦');
  });
});

describe('readTypedEscapes (SPEC §13: escapes can be typed back)', () => {
  it.each([
    ['as shown', 'invoice⟦U+200B⟧-42'],
    ['in angle brackets', 'invoice<U+200B>-42'],
    ['in parentheses (what the old ⟨⟩ looked like)', 'invoice(U+200B)-42'],
    ['in the old angle brackets', 'invoice⟨U+200B⟩-42'],
    ['in square or curly brackets', 'invoice[U+200B]-42'],
    ['as a JavaScript escape', 'invoice\\u200B-42'],
    ['with lower-case hex', 'invoice<u+200b>-42'],
  ])('reads an escape typed %s', (_how, typed) => {
    expect(readTypedEscapes(typed)).toBe('invoice\u200B-42');
  });

  it('reads code points beyond the BMP, and surrogate pairs typed as two \\u escapes', () => {
    expect(readTypedEscapes('flag\\u{E0067}')).toBe('flag\u{E0067}');
    expect(readTypedEscapes('x\\U0001F600')).toBe('x\u{1F600}');
    expect(readTypedEscapes('x\\uD83D\\uDE00')).toBe('x\u{1F600}');
    expect(readTypedEscapes('x<U+1F600>')).toBe('x\u{1F600}');
  });

  it('reads nothing from text without an escape, or with one that names no character', () => {
    expect(readTypedEscapes('plain')).toBeUndefined();
    expect(readTypedEscapes('a<U+110000>')).toBeUndefined();
    expect(readTypedEscapes('a<U+D800>')).toBeUndefined(); // a lone surrogate is no character
    expect(readTypedEscapes('a\\uD800')).toBeUndefined(); // nor as a UTF-16 unit left alone
    expect(readTypedEscapes('U+200B')).toBeUndefined(); // no bracket: not an escape
  });

  it('reads back every visible form (whatever is shown can be typed back)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('\u202E', '\u200B', '\u00A0', '\u{E0001}'))),
        (pieces) => {
          const s = pieces.join('');
          if (visibleForm(s) !== s && !/[<([{⟨⟦\\]/.test(s)) expect(readTypedEscapes(visibleForm(s))).toBe(s);
        },
      ),
    );
  });

  it('lists each escape with the character it names, for the hint under an input', () => {
    expect(typedEscapes('a<U+200B>b\\u202E').map((e) => [e.typed, describeCodePoint(e.codePoint)])).toEqual([
      ['<U+200B>', 'U+200B ZERO WIDTH SPACE'],
      ['\\u202E', 'U+202E RIGHT-TO-LEFT OVERRIDE'],
    ]);
    expect(describeCodePoint(0xe0067)).toBe('U+E0067');
  });
});

describe('confirmsId (the release dialog, SPEC §13)', () => {
  it('accepts the real value, the visible form and the escapes typed another way, and nothing else', () => {
    const id = 'rtl:\u202Eevil';
    expect(confirmsId(id, id)).toBe(true);
    expect(confirmsId('rtl:⟦U+202E⟧evil', id)).toBe(true);
    expect(confirmsId('rtl:(U+202E)evil', id)).toBe(true);
    expect(confirmsId('rtl:<U+202E>evil', id)).toBe(true);
    expect(confirmsId('rtl:\\u202Eevil', id)).toBe(true);
    expect(confirmsId('rtl:evil', id)).toBe(false);
    expect(confirmsId('rtl:live', id)).toBe(false);
    expect(confirmsId('rtl:<U+202D>evil', id)).toBe(false);
    expect(confirmsId('Jira:1', 'jira:1')).toBe(false);
  });
});

describe('equivalentSpellings', () => {
  it('names the NFC and NFD spellings that differ from the value', () => {
    expect(equivalentSpellings('caf\u00e9')).toEqual(['cafe\u0301']);
    expect(equivalentSpellings('cafe\u0301')).toEqual(['caf\u00e9']);
    expect(equivalentSpellings('jira:1')).toEqual([]);
    expect(equivalentSpellings('שלום')).toEqual([]);
  });
});
