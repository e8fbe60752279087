// Shared checks and generators for the hostile-input suite. Not a test file itself.
import fc from 'fast-check';
import { isUtf8 } from 'node:buffer';
import { expect } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { EVENTS } from '../../support/events';
import type { CallResult } from '../../support/http';

/** Tables a refused request must never touch (SPEC §4.1: Found and errors have zero side effects). */
const WRITTEN_TABLES = ['tasks', 'creation_operations', 'creation_steps', 'task_revisions', 'release_operations'];

/** Rows per written table, and the events (stored with their revisions) as `events`. */
export async function tableCounts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of WRITTEN_TABLES) {
    const row = await db.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${t}`);
    out[t] = Number(row?.n ?? 0);
  }
  out.events = Number((await db.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${EVENTS}`))?.n ?? 0);
  return out;
}

// What an internal detail looks like in a body: a stack frame, a source path, SQL, a driver's words.
const LEAKS: Array<[string, RegExp]> = [
  ['stack frame', /\bat \S+ \(|\bat (file|node):|\bat async /],
  ['source path', /\/(work|src|node_modules|tmp)\/|\.(ts|js|mjs):\d+/],
  ['SQL', /\b(SELECT .+ FROM|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bSQLSTATE\b|syntax error at/i],
  ['driver detail', /SQLITE_|sqlite3|\bpg_|duplicate key|violates|ECONNREFUSED|relation "|column "/i],
  ['zod dump', /"(expected|received|code)":\s*"(string|object|invalid_type)/],
];

export function leakIn(text: string): string | undefined {
  for (const [what, re] of LEAKS) if (re.test(text)) return what;
  return undefined;
}

/** The invariant every hostile request must keep: no 5xx and nothing internal in the body. */
export function expectClean(res: CallResult, what: string): void {
  if (res.status >= 500) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  // Success bodies echo the caller's own data (a title may say anything); only refusals are checked for leaks.
  const leak = res.status >= 400 ? leakIn(res.text) : undefined;
  if (leak) throw new Error(`${what}: body leaks a ${leak}: ${res.text.slice(0, 300)}`);
  expect(res.status).toBeGreaterThanOrEqual(200);
}

// Characters that break naive code: NUL and other controls, lone surrogates, bidi overrides, BOM,
// zero-width joiners, non-characters, astral code points, quotes and SQL/JSON metacharacters.
const SPECIALS = [
  '\u0000',
  '\u0001',
  '\n',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\ud800',
  '\udfff',
  '\u202e',
  '\u200f',
  '\u2066',
  '\ufeff',
  '\u200b',
  '\u200d',
  '\uffff',
  '\ufffe',
  '😀',
  '\u{10ffff}',
  "'",
  '"',
  '\\',
  '%',
  '_',
  ';',
  '--',
  '/*',
  '$1',
  '?',
];

const oddChar = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIALS) },
  { weight: 5, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
);

/** Short strings full of odd Unicode. */
export const oddString = fc.string({ unit: oddChar, maxLength: 40 });

/** Sometimes a huge string (past every field limit, still under the 1 MiB body limit). */
export const hostileString = fc.oneof(
  { weight: 8, arbitrary: oddString },
  { weight: 1, arbitrary: fc.integer({ min: 256, max: 200_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 60, max: 300 }).map((n) => 'é'.repeat(n)) },
);

/** Any JSON value, with odd strings and sometimes deep nesting. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3, stringUnit: oddChar }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1e308, 3.5, '', [], {}) },
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3000 }).map(deepNest) },
);

/** `{"a":{"a":…}}` n levels deep: recursion in a validator or serializer must not blow the stack. */
export function deepNest(n: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < n; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** `arb` with weight `w`, an absent field (undefined) with weight `absent`, a hostile value with weight `bad`. */
function field(arb: fc.Arbitrary<unknown>, w: number, absent: number, bad: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: w, arbitrary: arb },
    { weight: absent, arbitrary: fc.constant(undefined) },
    { weight: bad, arbitrary: hostileValue },
  );
}

/**
 * An object that looks like a create request: mostly plausible (so a good share gets past the envelope and the
 * lookup into validation and Begin), with odd Unicode everywhere, wrong types and hostile values mixed in,
 * optional fields that point at nothing, and unknown fields.
 */
export function hostileCreateBody(real: { workspaceId: string; stepId: string }): fc.Arbitrary<unknown> {
  const shaped = fc.record(
    {
      workspace_id: field(fc.constant(real.workspaceId), 8, 1, 1),
      external_id: field(oddString, 6, 2, 1),
      title: field(fc.oneof(fc.constantFrom('T', 'Fuzz title'), oddString), 8, 1, 1),
      description: field(oddString, 2, 6, 1),
      step_id: field(fc.constant(real.stepId), 1, 15, 1),
      parent_id: field(fc.uuid(), 1, 15, 1),
      attachments: field(fc.array(fc.uuid(), { maxLength: 3 }), 1, 15, 1),
      repositories: field(
        fc.array(fc.record({ repository_id: fc.uuid(), fresh_branch: fc.boolean() }), { maxLength: 2 }),
        1,
        15,
        1,
      ),
      remote_contributions: field(fc.array(fc.webUrl(), { maxLength: 2 }), 1, 15, 1),
      start_agent: field(fc.constant(false), 1, 15, 1),
      agent_profile_id: field(fc.uuid(), 1, 15, 1),
      blocked_by: field(fc.array(fc.uuid(), { maxLength: 3 }), 1, 15, 1),
      constructor: field(fc.constant({ prototype: { polluted: true } }), 1, 15, 0),
    },
    { requiredKeys: [] },
  );
  const withUnknown = fc
    .tuple(shaped, fc.dictionary(oddString, hostileValue, { maxKeys: 3 }))
    // JSON drops undefined fields, so "absent" really is absent on the wire.
    .map(([a, b]) => ({ ...b, ...(a as object) }));
  return fc.oneof({ weight: 8, arbitrary: withUnknown }, { weight: 1, arbitrary: hostileValue });
}

/** Raw bodies that are not JSON at all, or JSON that no parser should like. */
export const hostileRawBody = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '{',
    '{"a":',
    'null',
    '[]',
    '"str"',
    '{"workspace_id":}',
    '\u0000',
    '{"a":1}{"b":2}',
    'NaN',
    '{"__proto__":{"x":1}}',
  ),
  fc.string({ unit: oddChar, maxLength: 60 }),
  fc.integer({ min: 5000, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
);

/** Query strings and headers a client should not send but will. */
export const hostileQueryValue = fc.oneof(
  oddString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
  fc.constantFrom(
    '%',
    '%zz',
    '%00',
    '%ud800',
    '%ED%A0%80',
    '%C0%AF',
    '%FF',
    '&external_id=a',
    '%E2%80%AE',
    'a'.repeat(5000),
  ),
);

export const hostileHeaderValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 100 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'Bearer tth_',
    'Bearer tth_x_y',
    'Basic YWRtaW46YWRtaW4=',
    'bearer  tth_00000000-0000-0000-0000-000000000000_' + 'A'.repeat(43),
  ),
);

/** fast-check runs: moderate by default (shared CPU); TETHER_FUZZ_RUNS raises it. */
export function fuzzRuns(dflt: number): number {
  const n = Number(process.env.TETHER_FUZZ_RUNS);
  return Number.isInteger(n) && n > 0 ? n : dflt;
}

/**
 * Sends one request and checks it is clean; on a refusal (4xx) asserts nothing was written. `allow` names
 * tables a given status may legitimately touch (a release's stored 404, SPEC §7).
 */
export async function probe(
  db: Db,
  send: () => Promise<CallResult>,
  what: string,
  allow: (status: number) => string[] = () => [],
): Promise<CallResult> {
  const before = await tableCounts(db);
  const res = await send();
  expectClean(res, what);
  if (res.status >= 400) {
    const after = await tableCounts(db);
    for (const t of allow(res.status)) {
      delete after[t];
      delete before[t];
    }
    expect(after, `${what} → ${res.status} wrote rows`).toEqual(before);
  }
  return res;
}

// ---- Families: bytes that are not UTF-8, list cursors and page limits. ----

/** Byte sequences that are not UTF-8: the probe's own, plus random high bytes that do not decode. */
export const invalidUtf8: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom(
    ...[
      [0xff],
      [0xfe],
      [0xc0, 0x80],
      [0xc1, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0x80],
      [0xe2, 0x82],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xe0, 0x80, 0xaf],
    ].map((b) => Buffer.from(b)),
  ),
  fc
    .array(fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.integer({ min: 0x61, max: 0x7a })), {
      minLength: 1,
      maxLength: 8,
    })
    .map((bytes) => Buffer.from(bytes))
    .filter((b) => !isUtf8(b)),
);

/** `json` (which must contain `@@` inside a string) with `bad` spliced in at the mark. */
export function spliceBytes(json: string, bad: Buffer): Buffer {
  const at = json.indexOf('@@');
  return Buffer.concat([Buffer.from(json.slice(0, at)), bad, Buffer.from(json.slice(at + 2))]);
}

/** `bad` as percent escapes, for a query string. */
export function escapeBytes(bad: Buffer): string {
  return [...bad].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Strings a client might send as a task-list cursor: next_cursor values, and everything the old parser let through. */
export const cursorText: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 2_147_483_647 }).map(String),
  fc.bigInt({ min: 2_147_483_648n, max: 10n ** 30n }).map(String),
  fc.constantFrom(
    '0',
    '-1',
    '0x10',
    '0b11',
    '0o7',
    '1e3',
    '1E3',
    ' 5',
    '5 ',
    '\t5',
    '+5',
    '1.0',
    '1.5',
    '007',
    '١٢',
    'Infinity',
    'NaN',
    '',
    '2147483647',
    '2147483648',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);

/** The one cursor rule (src/server/domain/tasks/list-params.ts): empty is the first page, else 1..2^31-1 in digits. */
export function cursorAccepted(v: string): boolean {
  return v === '' || (/^[1-9][0-9]{0,9}$/.test(v) && Number(v) <= 2_147_483_647);
}

/** Values a typed client might send as a page `limit` or `after`. */
export const pageNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -3, max: 600 }),
  fc.constantFrom(0, 1, 200, 201, 500, 501, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 1e21),
  fc.double({ min: -10, max: 600, noNaN: true, noDefaultInfinity: true }),
);

/** The same as query-string text, with the spellings the old REST parsers accepted or choked on. */
export const pageNumberText: fc.Arbitrary<string> = fc.oneof(
  pageNumber.map(String),
  fc.constantFrom('', '0x10', '1e3', ' 5', '5 ', '+5', '-0', '007', '1.0', 'abc', '9'.repeat(20)),
);

/** The shared page rule: a whole number in [min, max] (src/server/domain/paging.ts). */
export function wholeIn(v: number, min: number, max: number): boolean {
  return Number.isInteger(v) && v >= min && v <= max;
}

/** As wholeIn, for query text: empty is absent (accepted), digits only, no leading zeros. */
export function wholeTextIn(v: string, min: number, max: number): boolean {
  return v === '' || (/^(0|[1-9][0-9]{0,15})$/.test(v) && wholeIn(Number(v), min, max));
}
