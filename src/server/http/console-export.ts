// GET /api/console/export/<list>.<csv|json>?input=<the list's input as JSON> — a console list or an identity's history
// as a file (SPEC §13): exactly the list on screen with its filters (the input is the list's own, as the page sends it
// to console.<list>), streamed page by page so a large list never sits in memory. Authorized as the list is: the same
// session cookie or bearer token, the same read check (domain/console/export.ts). A GET that changes nothing, so it
// needs no CSRF token; a cross-site page can start the download but never read it.
//
// CSV: RFC 4180 (CRLF, fields quoted when they hold a comma, quote or line break). A field that a spreadsheet would
// run as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) is prefixed with `'` — external ids are untrusted
// text. JSON: an array of the same records, values exactly as stored.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { DomainError } from '../domain/errors/domain-error';
import {
  EXPORT_LISTS,
  exportList,
  type ExportList,
  type ExportRecord,
  type ExportValue,
} from '../domain/console/export';
import type { Services } from '../services';
import { requireAuthenticated } from './authenticate-request';

const PATH = /^\/api\/console\/export\/([a-z]+)\.(csv|json)$/;

function csvField(v: ExportValue): string {
  if (v === null) return '';
  let s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function csvLine(values: readonly ExportValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/**
 * Writes `chunk`, waiting while the client's buffer is full (a slow download must not make the server buffer it all).
 * The wait that loses the race is cancelled: left pending, each full buffer would leave a `close` and an `error`
 * listener on the response for the rest of the download.
 */
async function write(res: ServerResponse, chunk: string): Promise<void> {
  if (!res.write(chunk)) {
    const settled = new AbortController();
    const { signal } = settled;
    try {
      await Promise.race([once(res, 'drain', { signal }), once(res, 'close', { signal })]);
    } finally {
      settled.abort();
    }
  }
  if (res.destroyed) throw new Error('client went away');
}

export async function handleConsoleExport(
  req: IncomingMessage,
  res: ServerResponse,
  services: Services,
): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw new DomainError('not_found');
  const url = new URL(req.url ?? '/', 'http://export');
  const m = PATH.exec(url.pathname);
  if (!m || !EXPORT_LISTS.includes(m[1] as ExportList)) throw new DomainError('not_found');
  const [list, format] = [m[1] as ExportList, m[2] as 'csv' | 'json'];
  const auth = await requireAuthenticated(services, req);
  let input: unknown;
  try {
    input = JSON.parse(url.searchParams.get('input') ?? '');
  } catch {
    throw new DomainError('validation_failed', 'input: the list’s input as JSON');
  }
  const table = await exportList(services, auth.actor, list, input);
  const stamp = new Date().toISOString().replace(/[-:]|\.\d+/g, '');
  res.writeHead(200, {
    'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8',
    'content-disposition': `attachment; filename="tether-${list}-${stamp}.${format}"`,
    'cache-control': 'no-store',
  });
  if (req.method === 'HEAD') return void res.end();
  const values = (r: ExportRecord) => table.columns.map((c) => r[c] ?? null);
  if (format === 'csv') {
    await write(res, csvLine(table.columns));
    for await (const r of table.rows) await write(res, csvLine(values(r)));
  } else {
    let first = true;
    await write(res, '[');
    for await (const r of table.rows) {
      await write(
        res,
        `${first ? '\n' : ',\n'}${JSON.stringify(Object.fromEntries(table.columns.map((c) => [c, r[c] ?? null])))}`,
      );
      first = false;
    }
    await write(res, first ? ']\n' : '\n]\n');
  }
  res.end();
}
