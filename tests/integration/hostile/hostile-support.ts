// Shared checks and generators for the hostile-input suite (issue 9). Not a test file itself.
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import type { CallResult } from '../../support/http';

/** Tables a refused request must never touch (SPEC §4.1: Found and errors have zero side effects). */
const WRITTEN_TABLES = ['tasks', 'creation_operations', 'creation_steps', 'task_revisions', 'outbox_events', 'release_operations'];

export async function tableCounts(db: Db): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of WRITTEN_TABLES) {
    const row = await db.one<{ n: unknown }>(`SELECT COUNT(*) AS n FROM ${t}`);
    out[t] = Number(row?.n ?? 0);
  }
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
  '\u0000', '\u0001', '\n', '\u007f', '\u0085', '\u00a0', '\ud800', '\udfff', '\u202e', '\u200f', '\u2066', '\ufeff',
  '\u200b', '\u200d', '\uffff', '\ufffe', '😀', '\u{10ffff}', "'", '"', '\\', '%', '_', ';', '--', '/*', '$1', '?',
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
      repositories: field(fc.array(fc.record({ repository_id: fc.uuid(), fresh_branch: fc.boolean() }), { maxLength: 2 }), 1, 15, 1),
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
  fc.constantFrom('', ' ', '{', '{"a":', 'null', '[]', '"str"', '{"workspace_id":}', '\u0000', '{"a":1}{"b":2}', 'NaN', '{"__proto__":{"x":1}}'),
  fc.string({ unit: oddChar, maxLength: 60 }),
  fc.integer({ min: 5000, max: 20000 }).map((n) => '['.repeat(n) + ']'.repeat(n)),
);

/** Query strings and headers a client should not send but will. */
export const hostileQueryValue = fc.oneof(
  oddString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
  fc.constantFrom('%', '%zz', '%00', '%ud800', '%ED%A0%80', '%C0%AF', '%FF', '&external_id=a', '%E2%80%AE', 'a'.repeat(5000)),
);

export const hostileHeaderValue = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 100 }).map((s) => s.replace(/[\r\n\0]/g, '')),
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer tth_', 'Bearer tth_x_y', 'Basic YWRtaW46YWRtaW4=', 'bearer  tth_00000000-0000-0000-0000-000000000000_' + 'A'.repeat(43)),
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
