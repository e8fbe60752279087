// Arbitrary JSON into the MCP tools (SPEC §4.1, STYLE habit 5): every input ends as a tool result or a
// JSON-RPC error — never an HTTP 5xx or a broken transport — and an error result never leaves a row behind.
import fc from 'fast-check';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { freshDb } from '../../support/db';
import { count, makeWorkspace, type TestWorkspace } from '../../support/fixtures';
import { makeToken, startTestApi, type TestApi } from '../../support/http';
import { cursorAccepted, cursorText, invalidUtf8, pageNumber, spliceBytes, wholeIn } from '../hostile/hostile-support';
import { connectMcp, type McpTestClient } from './mcp-client';
import { EVENTS } from '../../support/events';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let other: TestWorkspace;
let mcp: McpTestClient;
let token: string;

beforeAll(async () => {
  db = await freshDb();
  api = await startTestApi(db);
  ws = await makeWorkspace(db);
  other = await makeWorkspace(db);
  token = await makeToken(db, [ws.id]);
  mcp = await connectMcp(api.url, token);
});
afterAll(async () => {
  await mcp.close();
  await api.close();
  await db.close();
});

const written = async () => [
  await count(db, 'SELECT COUNT(*) AS n FROM tasks'),
  await count(db, 'SELECT COUNT(*) AS n FROM creation_operations'),
  await count(db, 'SELECT COUNT(*) AS n FROM task_revisions'),
  await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS}`),
];

const CODES = ['validation', 'not_found', 'conflict', 'forbidden', 'unavailable'];
const json = fc.jsonValue({ maxDepth: 2 });
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 300 }),
  fc.constantFrom('', ' ', '\t', 'x\n'),
);
/** Mostly absent, so that some calls get past validation and create. */
const rare = (...values: fc.Arbitrary<unknown>[]) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, ...values);
// Known fields with plausible and implausible values, plus arbitrary extra keys. Built inside each test:
// the workspaces exist only after beforeAll.
function createArgs() {
  return fc
    .tuple(
      fc.record(
        {
          workspace_id: fc.oneof({ arbitrary: fc.constant(ws.id), weight: 4 }, fc.constant(other.id), json),
          parent_id: rare(fc.uuid(), json),
          external_id: fc.oneof({ arbitrary: fc.string({ maxLength: 20 }), weight: 3 }, text, json),
          title: fc.oneof({ arbitrary: fc.string({ minLength: 1, maxLength: 20 }), weight: 3 }, text, json),
          description: rare(fc.constant(null), text, json),
          step_id: rare(json),
          attachments: rare(json),
          repositories: rare(json),
          remote_contributions: rare(json),
          start_agent: rare(fc.boolean(), json),
          agent_profile_id: rare(json),
          blocked_by: rare(json),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string({ maxLength: 10 }), json, { maxKeys: 3 }),
    )
    .map(([known, extra]) => ({ ...extra, ...known }));
}

async function expectSafe(name: string, args: unknown): Promise<void> {
  const before = await written();
  let r;
  try {
    r = await mcp.call(name, args);
  } catch (err) {
    // Only a JSON-RPC error (e.g. arguments that are not an object) is acceptable; an HTTP/transport failure is not.
    expect(err).toBeInstanceOf(McpError);
    expect(await written()).toEqual(before);
    return;
  }
  if (r.isError) {
    expect(CODES).toContain(r.json.code);
    expect(typeof r.json.error).toBe('string');
    expect(await written()).toEqual(before);
  } else if (name === 'create_task') {
    // Created writes exactly one task; Found writes nothing (SPEC §4.1).
    const tasksAfter = (await written())[0]!;
    expect(tasksAfter - before[0]!).toBe(r.structured!.deduplicated ? 0 : 1);
  } else {
    expect(r.structured).toBeDefined();
  }
}

describe('MCP tool input fuzzing', () => {
  it('create_task: arbitrary arguments never crash the transport and errors write nothing', async () => {
    await fc.assert(
      fc.asyncProperty(createArgs(), (args) => expectSafe('create_task', args)),
      { numRuns: 60 },
    );
  });

  it('create_task: arguments that are not an object are a JSON-RPC error, not a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(json, { maxLength: 3 }), fc.string(), fc.integer(), fc.boolean()), (args) =>
        expectSafe('create_task', args),
      ),
      { numRuns: 15 },
    );
  });

  it('get_task and list_tasks: arbitrary arguments never crash the transport', async () => {
    const readArgs = fc.record(
      { task_id: json, workspace_id: fc.oneof(fc.constant(ws.id), json), archived: json, limit: json, cursor: json },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('get_task', 'list_tasks'), readArgs, (name, args) => expectSafe(name, args)),
      { numRuns: 40 },
    );
  });
});

describe('on MCP: bytes that are not UTF-8, list_tasks cursor and limit', () => {
  it('a tools/call body with bytes that are not UTF-8 is a 400 parse error, nothing written', async () => {
    await fc.assert(
      fc.asyncProperty(invalidUtf8, fc.constantFrom('external_id', 'title'), async (bad, name) => {
        const args = JSON.stringify({ workspace_id: ws.id, external_id: 'mcp-u8', title: 'T', [name]: 'x@@' });
        const body = spliceBytes(
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_task","arguments":${args}}}`,
          bad,
        );
        const before = await written();
        const res = await fetch(`${api.url}/api/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: new Uint8Array(body),
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: { code: -32700, message: 'Parse error: invalid payload' } });
        expect(await written()).toEqual(before);
      }),
      { numRuns: 40 },
    );
  });

  it("list_tasks cursor: a next_cursor value is a page, anything else a validation error with REST's words", async () => {
    const cursor = fc.oneof({ weight: 4, arbitrary: cursorText }, { weight: 1, arbitrary: json });
    await fc.assert(
      fc.asyncProperty(cursor, async (c) => {
        const r = await mcp.call('list_tasks', { workspace_id: ws.id, cursor: c });
        const ok = c === null || (typeof c === 'string' && cursorAccepted(c));
        expect(r.isError, JSON.stringify(c)).toBe(!ok);
        if (!ok) {
          expect(r.json.code).toBe('validation');
          expect(String(r.json.error)).toMatch(/^invalid request: cursor: expected a next_cursor value/);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("list_tasks limit: a whole number from 1 to 200, else a validation error with REST's words", async () => {
    await fc.assert(
      fc.asyncProperty(pageNumber, async (limit) => {
        const r = await mcp.call('list_tasks', { workspace_id: ws.id, limit });
        expect(r.isError, String(limit)).toBe(!wholeIn(limit, 1, 200));
        if (r.isError)
          expect(r.json).toEqual({
            error: 'invalid request: limit: expected a whole number from 1 to 200',
            code: 'validation',
          });
      }),
      { numRuns: 60 },
    );
  });
});
