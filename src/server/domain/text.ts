// SPEC §10: "a text field that cannot be stored as sent (a lone surrogate) is refused as invalid, never silently
// altered; a value too long is named as too long." One schema for every text field Tether stores (a task's title,
// description and contribution URLs, names, webhook settings…), shared by REST, tRPC and MCP, so each surface refuses
// the same values with the same words (`validationError` in tasks/create-input.ts turns the issues into them):
//   - a lone surrogate (`"\ud800"` in JSON) has no UTF-8 spelling: PostgreSQL and SQLite would keep U+FFFD instead;
//   - NUL (U+0000) cannot be stored in PostgreSQL text, so neither dialect takes it;
//   → 400 `invalid payload: <field> must be well-formed Unicode` / `…must not contain NUL (U+0000) characters`;
//   - more than `max` characters → 400 `invalid request: <field>: must be <max> characters or fewer`.
// Characters are code points, as JSON Schema's `maxLength` counts them, so the published schemas (OpenAPI, MCP) say
// exactly what is checked: an emoji is one character, not two UTF-16 units.
import { z } from 'zod';

/** Marks a zod issue as a refusal of the text itself (`invalid payload`), not of a rule about its value. */
export const UNSTORABLE_TEXT = 'unstorable_text';

/** Code points in `s` (surrogate pairs count once). */
export function characterCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function tooLongMessage(max: number): string {
  return `must be ${max} characters or fewer`;
}

/**
 * A stored text of at most `max` characters. `trim` trims ends first (as `z.string().trim()`); `error` is the
 * message for a missing or non-string value (`title is required`). Chain `.min(1, …)` for a required non-empty one.
 */
export function storedText(max: number, opts: { trim?: boolean; error?: string } = {}) {
  const base = opts.error === undefined ? z.string() : z.string({ error: opts.error });
  return (opts.trim ? base.trim() : base)
    .refine((s) => s.isWellFormed(), {
      error: 'must be well-formed Unicode',
      params: { refusal: UNSTORABLE_TEXT },
      abort: true,
    })
    .refine((s) => !s.includes('\u0000'), {
      error: 'must not contain NUL (U+0000) characters',
      params: { refusal: UNSTORABLE_TEXT },
      abort: true,
    })
    .refine((s) => s.length <= max || characterCount(s) <= max, { error: tooLongMessage(max), abort: true })
    .meta({ maxLength: max });
}
