// SPEC §13: the console's task browser — an external-id prefix that is exactly "starts with, byte for
// byte" (SPEC §2.1: nothing folded), filters, every sort in both directions, and keyset pages that visit every row
// once, forwards and backwards — held against a reference order computed here from the rows themselves.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import type { Store } from '../../../src/server/db/store';
import { browseTasks, type BrowseInput } from '../../../src/server/domain/console/browse';
import { freshDb, storeFor } from '../../support/db';
import { makeWorkspace, userActor, type TestWorkspace } from '../../support/fixtures';

let db: Db;
let store: Store;
let ws: TestWorkspace;

interface Seeded {
  number: number;
  externalId: string | null;
  settled: boolean;
  archived: boolean;
  step: number;
  createdAt: string;
  title: string;
}
const seeded: Seeded[] = [];

/** Ids chosen to sit on every boundary a prefix range has: case, code points either side of the surrogates, the
 *  last code point, astral characters, NFC/NFD, and an id that is exactly a prefix of others. */
const IDS = [
  'ext-1',
  'ext-10',
  'ext-2',
  'EXT-1',
  'ext',
  'ext-1\u00e9',
  'ext-1e\u0301',
  'ext-1\u{1F600}',
  'ext-1\uD7FF',
  'ext-1\uE000',
  'ext-1\uFFFF',
  'ext-1\u{10FFFF}',
  'ext-1\u{10FFFF}z',
  'ext-2\u{10FFFF}',
  'exu',
  'rtl:\u202Eevil',
  'rtl:plain',
  'zw\u200Bspace',
  'a',
  'b c',
];

beforeAll(async () => {
  db = await freshDb();
  store = storeFor(db);
  ws = await makeWorkspace(db);
  // 60 tasks: the ids above, and tasks without one; settlement, archiving, steps and creation days vary; some
  // titles and creation times repeat so ties need the tie-break.
  for (let n = 1; n <= 60; n++) {
    const row: Seeded = {
      number: n,
      externalId: IDS[n - 1] ?? (n % 3 === 0 ? null : `bulk-${String(n).padStart(3, '0')}`),
      settled: n % 7 !== 0,
      archived: n % 5 === 0,
      step: n % 3,
      createdAt: new Date(Date.UTC(2026, 10, 1 + (n % 4), 12, 0, 0)).toISOString(),
      title: `title ${n % 6}`,
    };
    seeded.push(row);
    await db.run(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id,
         external_id_settled_at, archived_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7, 1, $8, $9, $10, $11)`,
      [
        randomUUID(),
        ws.id,
        n,
        `${ws.prefix}-${n}`,
        row.title,
        ws.steps[row.step]!.id,
        row.createdAt,
        row.settled || row.externalId === null ? 'completed' : 'preparing',
        row.externalId,
        row.settled && row.externalId !== null ? row.createdAt : null,
        row.archived ? row.createdAt : null,
      ],
    );
  }
});
afterAll(async () => db?.close());

const reader = () => userActor({ [ws.id]: 'viewer' });
const base: BrowseInput = {
  workspaceId: '',
  prefix: null,
  settlement: 'any',
  archived: 'include',
  stepId: null,
  createdFrom: null,
  createdTo: null,
  sort: 'identifier',
  dir: 'desc',
  cursor: null,
  direction: 'after',
  limit: 25,
};
const browse = (input: Partial<BrowseInput>) => browseTasks(store, reader(), { ...base, workspaceId: ws.id, ...input });

/** Code point order = UTF-8 byte order = what COLLATE "C" / BINARY compare (JS's `<` compares UTF-16 units). */
const cmpId = (a: string, b: string) => {
  const [x, y] = [[...a].map((c) => c.codePointAt(0)!), [...b].map((c) => c.codePointAt(0)!)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

/** The reference: every matching row in the sort's order (tasks without an id last, newest first). */
function expected(input: Partial<BrowseInput>, rows = seeded): number[] {
  const sort = input.sort ?? 'identifier';
  const sign = (input.dir ?? 'desc') === 'asc' ? 1 : -1;
  const matching = rows.filter((r) => {
    if (input.prefix != null && !(r.externalId ?? '\u0000').startsWith(input.prefix)) return false;
    if (input.settlement === 'settled' && !(r.externalId && r.settled)) return false;
    if (input.settlement === 'unsettled' && !(r.externalId && !r.settled)) return false;
    if (input.settlement === 'none' && r.externalId !== null) return false;
    if (input.archived === 'exclude' && r.archived) return false;
    if (input.archived === 'only' && !r.archived) return false;
    if (input.stepId && ws.steps[r.step]!.id !== input.stepId) return false;
    if (input.createdFrom && r.createdAt < `${input.createdFrom}T00:00:00.000Z`) return false;
    if (input.createdTo && r.createdAt.slice(0, 10) > input.createdTo) return false;
    return true;
  });
  const key = (r: Seeded): string | number =>
    ({ identifier: r.number, created_at: r.createdAt, title: r.title, step: r.step, external_id: r.externalId ?? '' })[
      sort
    ];
  return matching
    .sort((a, b) => {
      if (sort === 'external_id') {
        if ((a.externalId === null) !== (b.externalId === null)) return a.externalId === null ? 1 : -1;
        if (a.externalId === null) return b.number - a.number;
        return sign * cmpId(a.externalId, b.externalId!);
      }
      const [ka, kb] = [key(a), key(b)];
      const c = typeof ka === 'number' ? ka - (kb as number) : ka < kb ? -1 : ka > kb ? 1 : 0;
      return c !== 0 ? sign * c : sign * (a.number - b.number);
    })
    .map((r) => r.number);
}

const numbers = (rows: Array<{ identifier: string }>) => rows.map((r) => Number(r.identifier.split('-').at(-1)));

/** Every page forwards, then every page backwards from the end: each row once, in order, both ways. */
async function walk(input: Partial<BrowseInput>, limit: number): Promise<{ forwards: number[]; backwards: number[] }> {
  const forwards: number[] = [];
  let page = await browse({ ...input, limit });
  expect(page.prev_cursor).toBeNull();
  forwards.push(...numbers(page.rows));
  const pages = [page];
  while (page.next_cursor) {
    page = await browse({ ...input, limit, cursor: page.next_cursor });
    forwards.push(...numbers(page.rows));
    pages.push(page);
  }
  const backwards = [...numbers(page.rows)];
  while (page.prev_cursor) {
    page = await browse({ ...input, limit, cursor: page.prev_cursor, direction: 'before' });
    backwards.unshift(...numbers(page.rows));
  }
  return { forwards, backwards };
}

describe('browse by external-id prefix (SPEC §2.1, §13)', () => {
  it.each([
    'ext-1',
    'ext',
    'EXT',
    'ext-1\u{10FFFF}',
    'ext-1\uD7FF',
    'ext-1e',
    'ext-2',
    'rtl:',
    'zw\u200B',
    'b ',
    'nothing-starts-so',
  ])('prefix %j is exactly "starts with", byte for byte', async (prefix) => {
    const page = await browse({ prefix, sort: 'external_id', dir: 'asc', limit: 100 });
    expect(numbers(page.rows)).toEqual(expected({ prefix, sort: 'external_id', dir: 'asc' }));
    expect(page.matching).toBe(page.rows.length);
  });

  it('reads a prefix typed as the console shows it (⟨U+XXXX⟩), and ignores leading white space', async () => {
    const shown = await browse({ prefix: '  zw⟨U+200B⟩', sort: 'external_id', dir: 'asc' });
    expect(shown.prefix).toBe('zw\u200B');
    expect(numbers(shown.rows)).toEqual(expected({ prefix: 'zw\u200B' }));
    expect(shown.rows).toHaveLength(1);
  });

  it('refuses a prefix with control characters, or longer than an id can be', async () => {
    await expect(browse({ prefix: 'a\nb' })).rejects.toMatchObject({
      message: 'invalid request: prefix: control characters are not allowed',
    });
    await expect(browse({ prefix: 'x'.repeat(256) })).rejects.toMatchObject({
      message: 'invalid request: prefix: must be 255 UTF-8 bytes or fewer',
    });
  });
});

describe('filters, sorts and keyset pages (SPEC §13)', () => {
  const filterSets: Array<Partial<BrowseInput>> = [
    {},
    { settlement: 'settled' },
    { settlement: 'unsettled' },
    { settlement: 'none' },
    { archived: 'exclude' },
    { archived: 'only', settlement: 'settled' },
    { createdFrom: '2026-11-02', createdTo: '2026-11-03' },
    { prefix: 'bulk-0' },
  ];
  for (const filters of filterSets) {
    for (const sort of ['identifier', 'external_id', 'created_at', 'title', 'step'] as const) {
      for (const dir of ['asc', 'desc'] as const) {
        it(`${JSON.stringify(filters)} by ${sort} ${dir}: every row once, in order, forwards and backwards`, async () => {
          const input = { ...filters, sort, dir };
          const want = expected(input);
          const { forwards, backwards } = await walk(input, 7);
          expect(forwards).toEqual(want);
          expect(backwards).toEqual(want);
          expect((await browse({ ...input, limit: 100 })).matching).toBe(want.length);
        });
      }
    }
  }

  it('filters by step', async () => {
    const page = await browse({ stepId: ws.steps[1]!.id, limit: 100 });
    expect(numbers(page.rows)).toEqual(expected({ stepId: ws.steps[1]!.id }));
  });

  it('refuses a malformed day', async () => {
    await expect(browse({ createdFrom: '2026-13-45' })).rejects.toMatchObject({
      message: 'invalid request: created_from: must be a date (YYYY-MM-DD)',
    });
  });

  it('a workspace the actor cannot see is a 404', async () => {
    await expect(browseTasks(store, userActor({}), { ...base, workspaceId: ws.id })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
