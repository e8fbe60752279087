// SPEC §13: external ids are untrusted text shown to people. This module spells an id so that nothing in it can
// hide or garble the page: every invisible, format or direction-changing character becomes a visible escape
// `⟦U+XXXX⟧`, and reads back what people type for one. Pure and dependency-free: the console (browser) and the server
// (Find and browsing accept typed escapes) both import it, so what is shown and what is accepted never drift apart.
//
// The shown escape uses the white square brackets ⟦ ⟧ (U+27E6, U+27E7): in the console's fonts the angle brackets
// used before (⟨ ⟩) drew almost like ASCII parentheses, and people typed `(U+200B)` back. The visible form is
// one-to-one: the opening bracket `⟦` is itself always escaped, so every `⟦` in a visible form starts an escape and
// `parseVisibleForm` recovers the one value it came from. People may type an escape in other ways too
// (`<U+200B>`, `\u200B`, the old `⟨U+200B⟩`…): `readTypedEscapes` reads them all.

/**
 * Characters shown as escapes:
 * - Cc: C1 controls (SPEC §2.1 refuses only the ASCII ones), Cf: format characters — bidi embeddings, overrides and
 *   isolates (U+202A–U+202E, U+2066–U+2069), marks (U+200E, U+200F, U+061C), zero-width space/joiners, the BOM,
 *   soft hyphen, tag characters;
 * - Zl, Zp and every space separator but the plain space (U+00A0, U+2000–U+200A, U+3000…): they look like a space
 *   but typing a space never matches them;
 * - Default_Ignorable_Code_Point: what fonts draw as nothing (variation selectors, Hangul fillers, U+034F…);
 * - Cs: a lone surrogate (it cannot be stored, but the console may be shown one);
 * - U+27E6 itself (see above).
 * Unassigned and private-use code points are left alone: they draw as a visible box, and which code points are
 * unassigned depends on the Unicode version of the browser, which the server's must not have to match.
 */
const ESCAPED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}\u27E6]|(?! )\p{Zs}/gu;
const ESCAPE = /⟦U\+([0-9A-F]{4,6})⟧/g;

export function escapeOf(char: string): string {
  return `⟦U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟧`;
}

/** One piece of an id as shown: plain text, or one escaped character (`text` is its escape, `char` the real one). */
export type IdPart = { kind: 'text'; text: string } | { kind: 'escape'; text: string; char: string };

/** The id split into plain runs and escapes, in order (the parts' texts joined are `visibleForm(value)`). */
export function visibleParts(value: string): IdPart[] {
  const parts: IdPart[] = [];
  let last = 0;
  for (const m of value.matchAll(ESCAPED)) {
    if (m.index > last) parts.push({ kind: 'text', text: value.slice(last, m.index) });
    parts.push({ kind: 'escape', text: escapeOf(m[0]), char: m[0] });
    last = m.index + m[0].length;
  }
  if (last < value.length) parts.push({ kind: 'text', text: value.slice(last) });
  return parts;
}

/** The id as the console shows it: `rtl:⟦U+202E⟧evil`. Equal to the value when nothing in it needs escaping. */
export function visibleForm(value: string): string {
  return value.replace(ESCAPED, escapeOf);
}

/** Whether the id holds anything shown as an escape (the console then says so next to it). */
export function hasHiddenCharacters(value: string): boolean {
  return value.search(ESCAPED) !== -1;
}

/**
 * The value a visible form spells, or `undefined` when `text` is not one (it holds no escape, a raw character that
 * the visible form would have escaped, or an escape of a character that is never escaped).
 */
export function parseVisibleForm(text: string): string | undefined {
  if (!text.includes('⟦')) return undefined;
  let ok = true;
  const value = text.replace(ESCAPE, (_, hex: string) => {
    const cp = Number.parseInt(hex, 16);
    if (cp > 0x10ffff) {
      ok = false;
      return '';
    }
    return String.fromCodePoint(cp);
  });
  // Round trip: only the exact spelling the console shows is accepted (no lower-case hex, no needless escapes).
  return ok && value !== text && visibleForm(value) === text ? value : undefined;
}

/**
 * The ways people type an escape: the shown form and any bracket around `U+XXXX` (`⟦U+200B⟧`, `<U+200B>`,
 * `(U+200B)` — what the old angle brackets looked like —, `[U+200B]`, `{U+200B}`, `⟨U+200B⟩`), and the programmers'
 * `\u200B`, `\u{1F600}`, `\U0001F600`. Hex in either case.
 */
const TYPED_ESCAPE =
  /⟦[Uu]\+([0-9A-Fa-f]{4,6})⟧|⟨[Uu]\+([0-9A-Fa-f]{4,6})⟩|<[Uu]\+([0-9A-Fa-f]{4,6})>|\([Uu]\+([0-9A-Fa-f]{4,6})\)|\[[Uu]\+([0-9A-Fa-f]{4,6})\]|\{[Uu]\+([0-9A-Fa-f]{4,6})\}|\\u\{([0-9A-Fa-f]{1,6})\}|\\U([0-9A-Fa-f]{8})|\\u([0-9A-Fa-f]{4})/g;

/** One escape found in typed text: where, as typed, and the character it stands for. */
export interface TypedEscape {
  index: number;
  typed: string;
  /** The character; `undefined` when the escape names no character (beyond U+10FFFF, or a lone surrogate). */
  char: string | undefined;
  codePoint: number;
}

/** Every escape in `text`, in order (a `\uD83D\uDE00` pair is two escapes that read back as one character). */
export function typedEscapes(text: string): TypedEscape[] {
  return [...text.matchAll(TYPED_ESCAPE)].map((m) => {
    const hex = m.slice(1).find((g) => g !== undefined)!;
    const codePoint = Number.parseInt(hex, 16);
    // `\uXXXX` is a UTF-16 code unit (surrogate pairs are written as two); every other form is a code point.
    const unit = m[0].startsWith('\\u') && !m[0].startsWith('\\u{');
    const char =
      codePoint > 0x10ffff
        ? undefined
        : unit
          ? String.fromCharCode(codePoint)
          : codePoint >= 0xd800 && codePoint <= 0xdfff
            ? undefined
            : String.fromCodePoint(codePoint);
    return { index: m.index, typed: m[0], char, codePoint };
  });
}

/**
 * The value `text` spells when its escapes are read (any form `typedEscapes` knows), or `undefined` when it holds
 * none, or one that names no character, or the result is not well-formed text. Callers that search try the text as
 * typed first: an id may really contain `<U+200B>`.
 */
export function readTypedEscapes(text: string): string | undefined {
  const found = typedEscapes(text);
  if (found.length === 0 || found.some((e) => e.char === undefined)) return undefined;
  let value = '';
  let last = 0;
  for (const e of found) {
    value += text.slice(last, e.index) + e.char!;
    last = e.index + e.typed.length;
  }
  value += text.slice(last);
  return value.isWellFormed() ? value : undefined;
}

/** Type-to-confirm (SPEC §13): the real value, the visible form the console shows, or the value with escapes typed. */
export function confirmsId(typed: string, value: string): boolean {
  return typed === value || typed === visibleForm(value) || readTypedEscapes(typed) === value;
}

/** Names of the characters ids most often hide, for the hint under an input that holds an escape. */
const NAMES: Record<number, string> = {
  0x00a0: 'NO-BREAK SPACE',
  0x00ad: 'SOFT HYPHEN',
  0x061c: 'ARABIC LETTER MARK',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x3000: 'IDEOGRAPHIC SPACE',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
};

/** `U+200B ZERO WIDTH SPACE` (the name when this module knows it). */
export function describeCodePoint(codePoint: number): string {
  const hex = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return NAMES[codePoint] ? `${hex} ${NAMES[codePoint]}` : hex;
}

/**
 * The canonically-equivalent spellings worth looking for (SPEC §2.1 keeps NFC and NFD apart, so two tasks can
 * hold ids that look identical): the NFC and NFD forms that differ from the value. Empty for ASCII ids.
 */
export function equivalentSpellings(value: string): string[] {
  if (/^[\x20-\x7e]*$/.test(value)) return [];
  return [...new Set([value.normalize('NFC'), value.normalize('NFD')])].filter((v) => v !== value);
}
