// Every answer a REST test receives is held to the OpenAPI document (the one the server serves, computed from
// the route table and its zod schemas). `call()` (./http.ts) runs this on every /api/v1 response: a status the route
// does not document, a body its schema refuses, a missing documented header or a stray body on a 204 fails the test.
// JSON Schema 2020-12 (OpenAPI 3.1's dialect) through Ajv, with ajv-formats for `date-time`, `uuid` and friends.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/server/rest/router';

const DOC_KEY = 'tether-openapi';
const PREFIX = '/api/v1';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(openApiDocument, DOC_KEY);

type Operation = {
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, { required?: boolean }> }>;
};

const templates = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${PREFIX}${template.replace(/\./g, '\\.').replace(/\{[a-z_]+\}/g, '[^/]+')}/?$`),
}));

const pointer = (...tokens: string[]) => tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validator(template: string, method: string, status: string, type: string): ValidateFunction {
  const ref = `${DOC_KEY}#/${pointer('paths', template, method, 'responses', status, 'content', type, 'schema')}`;
  const validate = ajv.getSchema(ref);
  if (!validate) throw new ResponseContractError(` no schema at ${ref}`);
  return validate;
}

/** An answer the document does not describe. Tests that tolerate failed requests (outages, timeouts) rethrow it. */
export class ResponseContractError extends Error {
  constructor(message: string) {
    super(`openapi-check: ${message}`);
    this.name = 'ResponseContractError';
  }
}

export interface ReceivedResponse {
  status: number;
  headers: Headers;
  text: string;
}

/** The exact body of the router's own refusals, which no operation lists (the document's description says them). */
function expectRouterAnswer(where: string, res: ReceivedResponse, status: number, body: string): void {
  if (res.status !== status || res.text !== body) {
    throw new ResponseContractError(
      ` ${where} is not in the document, so only ${status} ${body} may answer it; got ${res.status} ${res.text.slice(0, 300)}`,
    );
  }
}

/** Throws unless the document describes this answer to `method path`. Paths outside /api/v1 are not checked. */
export function checkRestResponse(method: string, target: string, res: ReceivedResponse): void {
  const path = new URL(target, 'http://localhost').pathname;
  if (path !== PREFIX && !path.startsWith(`${PREFIX}/`)) return;
  const where = `${method} ${path}`;
  const found = templates.find((t) => t.pattern.test(path));
  if (!found) return expectRouterAnswer(where, res, 404, '{"error":"not found"}');
  const operation = openApiDocument.paths[found.template]![method.toLowerCase()] as Operation | undefined;
  if (!operation) return expectRouterAnswer(where, res, 405, '{"error":"method not allowed"}');

  const documented = operation.responses[String(res.status)];
  const context = `${where} (${found.template}) answered ${res.status}`;
  if (!documented)
    throw new ResponseContractError(
      ` ${context}, a status the document does not list for it: ${res.text.slice(0, 300)}`,
    );
  for (const [name, header] of Object.entries(documented.headers ?? {})) {
    if (header.required && !res.headers.has(name))
      throw new ResponseContractError(` ${context} without its documented header ${name}`);
  }
  if (!documented.content) {
    if (res.text !== '')
      throw new ResponseContractError(
        ` ${context} with a body the document says it has not: ${res.text.slice(0, 300)}`,
      );
    return;
  }
  const received = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  const type = Object.keys(documented.content).find((t) => t === received);
  if (!type)
    throw new ResponseContractError(
      ` ${context} as ${received || 'no content type'}; the document says ${Object.keys(documented.content).join(', ')}`,
    );
  if (type !== 'application/json') return; // a stream: its events are checked by the tests that read them
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    throw new ResponseContractError(` ${context} with a body that is not JSON: ${res.text.slice(0, 300)}`);
  }
  const validate = validator(found.template, method.toLowerCase(), String(res.status), type);
  if (!validate(body)) {
    throw new ResponseContractError(
      ` ${context} with a body the document refuses (${ajv.errorsText(validate.errors)}): ${res.text.slice(0, 500)}`,
    );
  }
}

/** An event stream's one `data:` payload, held to the document's EventRecord. */
export function checkStreamedEvent(event: unknown): void {
  const validate = ajv.getSchema(`${DOC_KEY}#/components/schemas/EventRecord`)!;
  if (!validate(event))
    throw new ResponseContractError(
      ` a streamed event the document refuses (${ajv.errorsText(validate.errors)}): ${JSON.stringify(event).slice(0, 500)}`,
    );
}

/** A whole HTTP/1.1 answer read off a socket (`Content-Length` framed, as the API sends it), for checkRestResponse. */
export function parseRawResponse(raw: string): ReceivedResponse {
  const split = raw.indexOf('\r\n\r\n');
  const [line = '', ...fields] = raw.slice(0, split === -1 ? raw.length : split).split('\r\n');
  const headers = new Headers();
  for (const f of fields) {
    const i = f.indexOf(':');
    if (i > 0) headers.append(f.slice(0, i).trim(), f.slice(i + 1).trim());
  }
  return { status: Number(line.split(' ')[1] ?? 0), headers, text: split === -1 ? '' : raw.slice(split + 4) };
}
