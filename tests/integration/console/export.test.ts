// SPEC §13: any console list or identity history can be taken away as CSV or JSON — what is on screen with its
// filters, every row (streamed page by page), authorized exactly as the list. Through the real HTTP server.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { freshDb } from '../../support/db';
import { makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { makeToken, startTestApi, type TestApi } from '../../support/http';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;
let token: string;
let otherToken: string;
/** More than one export page (500 rows): the export must read on past the first. */
const OPERATIONS = 1_203;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  other = await makeWorkspace(db);
  token = await makeToken(db, [ws.id], ['tasks:read']);
  otherToken = await makeToken(db, [other.id], ['tasks:read']);
  const base = Date.parse('2026-11-01T00:00:00.000Z');
  await db.transaction(async (tx) => {
    for (let i = 0; i < OPERATIONS; i++) {
      // Ids that a spreadsheet would run as a formula, and ones that need quoting, among plain ones.
      const ext = i === 0 ? '=HYPERLINK("http://evil.example")' : i === 1 ? 'a,b "quoted"\nline' : `jira:${i}`;
      await tx.run(
        `INSERT INTO creation_operations (id, workspace_id, task_id, actor_id, external_id, state, plan, token_hash, identity_released, generation,
           created_at, updated_at) VALUES ($1, $2, $3, 'system', $4, $5, '{"steps":[]}', 'x', $6, 0, $7, $7)`,
        [
          randomUUID(),
          ws.id,
          randomUUID(),
          ext,
          i % 4 === 3 ? 'aborted' : 'completed',
          false,
          new Date(base + i * 1000).toISOString(),
        ],
      );
    }
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await db?.close();
});

function exportUrl(list: string, format: 'csv' | 'json', input: unknown): string {
  return `${api.url}/api/console/export/${list}.${format}?input=${encodeURIComponent(JSON.stringify(input))}`;
}

const get = (url: string, bearer: string | null = token) =>
  fetch(url, { headers: bearer ? { authorization: `Bearer ${bearer}` } : {} });

/** RFC 4180 fields (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

describe('export of the operations list (SPEC §13)', () => {
  it('JSON: every row the list holds with the filter on screen, in the list order, streamed past the first page', async () => {
    const res = await get(exportUrl('operations', 'json', { workspace_id: ws.id, state: 'completed' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="tether-operations-\d{8}T\d{6}Z\.json"$/,
    );
    const rows = (await res.json()) as Array<Record<string, unknown>>;
    const stored = await db.query<{ id: unknown }>(
      "SELECT id FROM creation_operations WHERE workspace_id = $1 AND state = 'completed' ORDER BY created_at DESC, id DESC",
      [ws.id],
    );
    expect(rows.map((r) => r.id)).toEqual(stored.map((r) => String(r.id)));
    expect(rows.length).toBeGreaterThan(500);
    expect(rows[0]).toMatchObject({
      state: 'completed',
      begun_by: 'Tether (system)',
      begun_by_kind: 'system',
      steps_total: 0,
      request_id: null,
    });
  });

  it('CSV: a header and one line per row; quotes, commas and line breaks quoted; a formula-looking id defused', async () => {
    const res = await get(exportUrl('operations', 'csv', { workspace_id: ws.id }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const [header, ...lines] = parseCsv(await res.text());
    expect(header!.slice(0, 4)).toEqual(['id', 'state', 'external_id', 'task_identifier']);
    expect(lines).toHaveLength(OPERATIONS);
    const ext = header!.indexOf('external_id');
    expect(lines.map((l) => l[ext])).toContain('a,b "quoted"\nline');
    expect(lines.map((l) => l[ext])).toContain(`'=HYPERLINK("http://evil.example")`);
  });

  it('a download read slowly waits on the client without piling listeners on the response', async () => {
    // Every full send buffer makes the export wait for `drain` or `close`; a wait left pending after the other won
    // would stay on the response, and past ten Node warns of a leak. A reader that takes its time fills the buffer
    // again and again.
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const res = await get(exportUrl('operations', 'csv', { workspace_id: ws.id }));
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      let bytes = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        await new Promise((r) => setTimeout(r, 2));
      }
      expect(bytes).toBeGreaterThan(100_000);
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  });

  it('is authorized as the list: 401 without a credential, 404 for a workspace the caller cannot see, 400 for a bad input', async () => {
    expect((await get(exportUrl('operations', 'csv', { workspace_id: ws.id }), null)).status).toBe(401);
    const hidden = await get(exportUrl('operations', 'csv', { workspace_id: ws.id }), otherToken);
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({ error: 'not found' });
    const bad = await get(exportUrl('operations', 'json', { workspace_id: ws.id, state: 'sideways' }));
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^invalid request: state: /);
    expect((await get(`${api.url}/api/console/export/operations.csv?input=not-json`)).status).toBe(400);
    expect((await get(`${api.url}/api/console/export/secrets.csv?input=%7B%7D`)).status).toBe(404);
  });
});

describe('export of the other lists', () => {
  it('tasks, releases and unsettled with their filters, and an identity history, as JSON and CSV', async () => {
    const writer = await makeToken(db, [ws.id]);
    const ext = uniq('exp-');
    const created = await fetch(`${api.url}/api/v1/tasks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workspace_id: ws.id, title: 'exported', external_id: ext }),
    });
    expect(created.status).toBe(200);
    const released = await fetch(
      `${api.url}/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}&reason=export+test`,
      {
        method: 'DELETE',
        headers: { authorization: `Bearer ${writer}`, 'idempotency-key': randomUUID(), 'x-request-id': `req-${ext}` },
      },
    );
    expect(released.status).toBe(204);

    const tasks = (await (
      await get(exportUrl('tasks', 'json', { workspace_id: ws.id, sort: 'created_at', dir: 'desc' }))
    ).json()) as Array<Record<string, unknown>>;
    expect(tasks).toEqual([expect.objectContaining({ title: 'exported', external_id: null, settlement: 'none' })]);
    const releases = (await (
      await get(exportUrl('releases', 'json', { workspace_id: ws.id, reason_text: 'EXPORT' }))
    ).json()) as Array<Record<string, unknown>>;
    expect(releases).toEqual([
      expect.objectContaining({
        external_id: ext,
        reason: 'export test',
        result: 'released',
        request_id: `req-${ext}`,
        replays: 0,
        key_conflicts: 0,
      }),
    ]);
    expect(
      (await (
        await get(exportUrl('releases', 'json', { workspace_id: ws.id, reason: 'without' }))
      ).json()) as unknown[],
    ).toEqual([]);
    expect((await (await get(exportUrl('unsettled', 'json', { workspace_id: ws.id }))).json()) as unknown[]).toEqual(
      [],
    );
    const history = parseCsv(
      await (await get(exportUrl('identity', 'csv', { workspace_id: ws.id, external_id: ext }))).text(),
    );
    expect(history.map((r) => r[0])).toEqual(['record', 'held', 'release']);
  });
});
