// The yardstick for Tether's HTTP series: the idempotent create endpoint a competent engineer writes by hand in an
// afternoon instead of adopting Tether. `node:http`, the same driver as Tether (`pg` with the same pool size and named
// statements, or better-sqlite3 with the same pragmas), one table with the same C-collated partial unique index as
// Tether's `tasks` (uniq_tasks_external_id), a bearer token checked against one SHA-256 digest held in memory, and the
// JSON body Tether's REST create answers with. A create looks the identity up first, then inserts with
// `ON CONFLICT DO NOTHING RETURNING`, and re-reads when the insert lost a race. It has no operations, revisions, events,
// recovery or release: the gap between it and Tether is what those cost. No tricks either way — no caching of answers,
// no batching, no skipped validation of what it reads.
import Database from 'better-sqlite3';
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import pg from 'pg';
import type { Db } from '../../src/server/db/types';

export const HAND_TABLE = 'hand_tasks';

/** The workspace the token grants (the endpoint serves one; the bench seeds it beside Tether's). */
export interface HandWorkspace {
  id: string;
  stepId: string;
  prefix: string;
}

const COLUMNS =
  'id, workspace_id, number, title, description, step_id, parent_id, archived_at, created_at, updated_at, revision, external_id';

/** One table, keyed by id, with Tether's identity index: same key, same collation, partial on held identities. */
export function handSchema(dialect: 'postgres' | 'sqlite'): string {
  const pgsql = dialect === 'postgres';
  const time = pgsql ? 'timestamptz' : 'text';
  // PostgreSQL numbers rows with an identity column; SQLite with the rowid every table has.
  const number = pgsql ? 'number bigint GENERATED ALWAYS AS IDENTITY,' : '';
  return `
    CREATE TABLE ${HAND_TABLE} (
      id text PRIMARY KEY,
      workspace_id text NOT NULL,
      ${number}
      title text NOT NULL,
      description text,
      step_id text NOT NULL,
      parent_id text,
      archived_at ${time},
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL,
      revision integer NOT NULL DEFAULT 1,
      external_id text ${pgsql ? 'COLLATE "C"' : 'COLLATE BINARY'}
    );
    CREATE UNIQUE INDEX uniq_${HAND_TABLE}_external_id ON ${HAND_TABLE}
      (workspace_id, external_id ${pgsql ? 'COLLATE "C"' : 'COLLATE BINARY'}) WHERE external_id IS NOT NULL;`;
}

interface Row {
  id: string;
  workspace_id: string;
  number: number | string;
  title: string;
  description: string | null;
  step_id: string;
  parent_id: string | null;
  archived_at: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  revision: number;
  external_id: string | null;
}

interface Storage {
  find(workspaceId: string, externalId: string): Promise<Row | undefined>;
  /** The new row, or undefined when another request holds the identity. */
  insert(values: unknown[]): Promise<Row | undefined>;
}

const SELECT = (dialect: 'postgres' | 'sqlite') =>
  `SELECT ${dialect === 'postgres' ? COLUMNS : COLUMNS.replace('number', 'rowid AS number')} FROM ${HAND_TABLE}
   WHERE workspace_id = $1 AND external_id = $2`;
const INSERT = (dialect: 'postgres' | 'sqlite') =>
  `INSERT INTO ${HAND_TABLE} (id, workspace_id, title, description, step_id, created_at, updated_at, external_id)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING
   RETURNING ${dialect === 'postgres' ? COLUMNS : COLUMNS.replace('number', 'rowid AS number')}`;

function pgStorage(url: string, poolSize: number): Storage {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const find = SELECT('postgres');
  const insert = INSERT('postgres');
  return {
    async find(workspaceId, externalId) {
      return (await pool.query<Row>({ name: 'hand_find', text: find, values: [workspaceId, externalId] })).rows[0];
    },
    async insert(values) {
      return (await pool.query<Row>({ name: 'hand_insert', text: insert, values })).rows[0];
    },
  };
}

function sqliteStorage(file: string): Storage {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  const positional = (sql: string) => sql.replace(/\$\d+/g, '?'); // every $n appears once, in order
  const find = db.prepare<unknown[], Row>(positional(SELECT('sqlite')));
  const insert = db.prepare<unknown[], Row>(positional(INSERT('sqlite')));
  return {
    find: async (workspaceId, externalId) => find.get(workspaceId, externalId),
    insert: async (values) => insert.get(...values),
  };
}

/** The held identities `ext-1 … ext-count` the Found series asks for, in one statement, as bench/lib/seed.ts loads
 *  Tether's (a Db of Tether's, so the bench seeds both through the same connection). */
export async function handBulkLoad(db: Db, ws: HandWorkspace, count: number): Promise<void> {
  await db.exec(handSchema(db.dialect));
  const insert = `INSERT INTO ${HAND_TABLE} (id, workspace_id, title, step_id, created_at, updated_at, external_id)`;
  const at = new Date().toISOString();
  if (db.dialect === 'postgres') {
    await db.run(
      `${insert} SELECT 'hand-' || g, $1, 'bulk task ' || g, $2, $3::timestamptz, $3::timestamptz, 'ext-' || g
       FROM generate_series(1, $4::int) g`,
      [ws.id, ws.stepId, at, count],
    );
  } else {
    await db.run(
      `${insert} WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < $4)
       SELECT 'hand-' || g, $1, 'bulk task ' || g, $2, $3, $3, 'ext-' || g FROM s`,
      [ws.id, ws.stepId, at, count],
    );
  }
  await db.exec(`ANALYZE ${HAND_TABLE}`);
}

const iso = (v: Date | string | null) => (v instanceof Date ? v.toISOString() : v);

/** Tether's create answer (toCreateResponse): the task body, then `deduplicated` and `creation_complete`. */
function body(ws: HandWorkspace, row: Row, deduplicated: boolean) {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    identifier: `${ws.prefix}-${row.number}`,
    title: row.title,
    description: row.description,
    step_id: row.step_id,
    parent_id: row.parent_id,
    archived_at: iso(row.archived_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    revision: row.revision,
    ...(row.external_id === null ? {} : { external_id: row.external_id }),
    deduplicated,
    creation_complete: true,
  };
}

const MAX_BODY = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((ok, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) fail(new HttpError(413, 'payload too large'));
      else chunks.push(c);
    });
    req.on('end', () => ok(Buffer.concat(chunks).toString('utf8')));
    req.on('error', fail);
  });
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

export interface HandWrittenOptions {
  databaseUrl: string;
  /** SHA-256 of the one bearer token it accepts, hex. */
  tokenSha256: string;
  workspace: HandWorkspace;
  /** PostgreSQL pool size (Tether's, for a like-for-like comparison). */
  poolSize: number;
}

export function createHandWrittenServer(opts: HandWrittenOptions): Server {
  const storage = opts.databaseUrl.startsWith('file:')
    ? sqliteStorage(opts.databaseUrl.slice('file:'.length))
    : pgStorage(opts.databaseUrl, opts.poolSize);
  const digest = Buffer.from(opts.tokenSha256, 'hex');
  const ws = opts.workspace;

  const authorized = (req: IncomingMessage) => {
    const header = req.headers.authorization;
    if (!header?.startsWith('Bearer ')) return false;
    return timingSafeEqual(createHash('sha256').update(header.slice(7)).digest(), digest);
  };

  async function create(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!authorized(req)) throw new HttpError(401, 'unauthorized');
    let input: unknown;
    try {
      input = JSON.parse(await readBody(req));
    } catch (err) {
      throw err instanceof HttpError ? err : new HttpError(400, 'invalid JSON');
    }
    const { workspace_id, external_id, title, description } = (input ?? {}) as Record<string, unknown>;
    if (workspace_id !== ws.id) throw new HttpError(403, 'workspace not granted');
    if (typeof external_id !== 'string' || external_id.length === 0 || external_id.length > 255)
      throw new HttpError(400, 'external_id: 1 to 255 characters');
    const found = await storage.find(ws.id, external_id);
    if (found) return send(res, 200, body(ws, found, true));
    if (typeof title !== 'string' || title.trim() === '' || title.length > 500)
      throw new HttpError(400, 'title: 1 to 500 characters');
    if (description !== undefined && description !== null && typeof description !== 'string')
      throw new HttpError(400, 'description: a string');
    const now = new Date().toISOString();
    const values = [randomUUID(), ws.id, title, description ?? null, ws.stepId, now, now, external_id];
    const inserted = await storage.insert(values);
    if (inserted) return send(res, 201, body(ws, inserted, false));
    // Another request inserted the identity between our lookup and our insert: answer with its row.
    const winner = await storage.find(ws.id, external_id);
    if (!winner) throw new HttpError(503, 'identity contended, retry');
    send(res, 200, body(ws, winner, true));
  }

  return createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v1/tasks') return send(res, 404, { error: 'not found' });
    create(req, res).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) console.error(err);
      if (!res.headersSent) send(res, status, { error: status === 500 ? 'internal error' : (err as Error).message });
    });
  });
}
