// SPEC §13: external ids are untrusted text shown to people. This module spells an id so that nothing in it can
// hide or garble the page: every invisible, format or direction-changing character becomes a visible escape
// `⟨U+XXXX⟩`. Pure and dependency-free: the console (browser) and the server (Find accepts the visible form) both
// import it, so what is shown and what is accepted can never drift apart.
//
// The visible form is one-to-one: the opening bracket `⟨` (U+27E8) is itself always escaped, so every `⟨` in a
// visible form starts an escape, and `parseVisibleForm` recovers the one value it came from.

/**
 * Characters shown as escapes:
 * - Cc: C1 controls (SPEC §2.1 refuses only the ASCII ones), Cf: format characters — bidi embeddings, overrides and
 *   isolates (U+202A–U+202E, U+2066–U+2069), marks (U+200E, U+200F, U+061C), zero-width space/joiners, the BOM,
 *   soft hyphen, tag characters;
 * - Zl, Zp and every space separator but the plain space (U+00A0, U+2000–U+200A, U+3000…): they look like a space
 *   but typing a space never matches them;
 * - Default_Ignorable_Code_Point: what fonts draw as nothing (variation selectors, Hangul fillers, U+034F…);
 * - Cs: a lone surrogate (it cannot be stored, but the console may be shown one);
 * - U+27E8 itself (see above).
 * Unassigned and private-use code points are left alone: they draw as a visible box, and which code points are
 * unassigned depends on the Unicode version of the browser, which the server's must not have to match.
 */
const ESCAPED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\p{Cs}\u27E8]|(?! )\p{Zs}/gu;
const ESCAPE = /⟨U\+([0-9A-F]{4,6})⟩/g;

export function escapeOf(char: string): string {
  return `⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
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

/** The id as the console shows it: `rtl:⟨U+202E⟩evil`. Equal to the value when nothing in it needs escaping. */
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
  if (!text.includes('⟨')) return undefined;
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

/** Type-to-confirm (SPEC §13): the real value, or the visible form the console shows for it. */
export function confirmsId(typed: string, value: string): boolean {
  return typed === value || typed === visibleForm(value);
}

/**
 * The other canonically-equivalent spellings worth looking for (SPEC §2.1 keeps NFC and NFD apart, so two tasks can
 * hold ids that look identical): the NFC and NFD forms that differ from the value. Empty for ASCII ids.
 */
export function equivalentSpellings(value: string): string[] {
  if (/^[\x20-\x7e]*$/.test(value)) return [];
  return [...new Set([value.normalize('NFC'), value.normalize('NFD')])].filter((v) => v !== value);
}
