// The OpenAPI document as the live server serves it, and proof that it tells the truth — every operation it
// lists is answered once here with its documented success and once without credentials (call() holds each answer to
// the document: tests/support/openapi-check.ts), and the query parameters it describes are the ones the server takes.
import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src/server/db/types';
import { buildOpenApiDocument, openApiPath } from '../../../src/server/rest/openapi';
import { path as routePattern } from '../../../src/server/rest/route';
import { openApiDocument, restRoutes } from '../../../src/server/rest/router';
import { makeWorkspace, uniq, type TestWorkspace } from '../../support/fixtures';
import { call, makeToken, type CallResult, type TestApi, useApiWorld } from '../../support/http';
import { openSse } from '../events/sse-client';

let db: Db;
let api: TestApi;
let ws: TestWorkspace;
let token: string;
useApiWorld((w) => ({ db, api, ws, token } = w));

type Parameter = { name: string; in: string; schema: Record<string, unknown> };
const operationIds = restRoutes.map((r) => r.doc.operationId);

/** The operation a request reaches, found the way the router finds it. */
function operationOf(method: string, target: string): string {
  const pathname = new URL(target, 'http://localhost').pathname;
  const route = restRoutes.find((r) => r.method === method && routePattern(r.path).test(pathname));
  if (!route) throw new Error(`no route for ${method} ${pathname}`);
  return route.doc.operationId;
}

describe('GET /api/v1/openapi.json', () => {
  it('serves the document computed from the route table, without credentials', async () => {
    const res = await call(api.url, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.json).toEqual(openApiDocument);
    expect(res.json).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(restRoutes))));
  });
});

describe('every operation in the document, as the server answers it', () => {
  it('answers each one with its documented success (each answer checked against the document)', async () => {
    const covered = new Set<string>();
    const admin = await makeToken(db, [ws.id], ['tasks:read', 'tasks:write', 'identities:release', 'admin']);
    const go = async (method: string, target: string, opts: Parameters<typeof call>[3] = {}): Promise<CallResult> => {
      const res = await call(api.url, method, target, { token, ...opts });
      expect(res.status, `${method} ${target}: ${res.text}`).toBeLessThan(300);
      covered.add(operationOf(method, target));
      return res;
    };
    const ext = uniq('tour-');
    const task = (await go('POST', '/api/v1/tasks', { body: { workspace_id: ws.id, external_id: ext, title: 'Tour' } }))
      .json as { id: string };
    await go('GET', `/api/v1/tasks/${task.id}`);
    await go('PATCH', `/api/v1/tasks/${task.id}`, { body: { title: 'Tour, renamed' } });
    await go('POST', `/api/v1/tasks/${task.id}/archive`);
    await go('POST', `/api/v1/tasks/${task.id}/unarchive`);
    await go('GET', `/api/v1/tasks/${task.id}/revisions`);
    await go('GET', `/api/v1/workspaces/${ws.id}/tasks?limit=2&archived=include`);
    await go('GET', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`);
    await go('DELETE', `/api/v1/workspaces/${ws.id}/tasks/by-external-id?external_id=${ext}`, {
      headers: { 'idempotency-key': randomUUID() },
    });
    await go('DELETE', `/api/v1/tasks/${task.id}`);
    await go('GET', `/api/v1/workspaces/${ws.id}/events?after=0&limit=5`);
    const stream = await openSse(`${api.url}/api/v1/workspaces/${ws.id}/events/stream?last_event_id=0`, {
      authorization: `Bearer ${token}`,
    });
    await stream.waitFor(2); // the task's events so far, each held to the document's EventRecord
    stream.close();
    covered.add(operationOf('GET', `/api/v1/workspaces/${ws.id}/events/stream`));

    const hook = (
      await go('POST', `/api/v1/workspaces/${ws.id}/webhooks`, {
        token: admin,
        body: { url: 'https://hooks.invalid/tour' },
      })
    ).json as { id: string };
    await go('GET', `/api/v1/workspaces/${ws.id}/webhooks`, { token: admin });
    await go('GET', `/api/v1/workspaces/${ws.id}/webhooks/${hook.id}/deliveries?limit=10`, { token: admin });
    await go('DELETE', `/api/v1/workspaces/${ws.id}/webhooks/${hook.id}`, { token: admin });
    const form = new FormData();
    form.set('workspace_id', ws.id);
    form.set('file', new Blob(['tour']), 'tour.txt');
    await go('POST', '/api/v1/attachments', { form });
    const doomed = await makeWorkspace(db);
    await go('DELETE', `/api/v1/workspaces/${doomed.id}`, { token: await makeToken(db, [doomed.id], ['admin']) });
    await go('GET', '/api/v1/openapi.json', { token: undefined });

    expect([...covered].sort()).toEqual([...operationIds].sort());
  });

  it('answers each one without credentials with the documented 401 (the document itself excepted)', async () => {
    for (const route of restRoutes) {
      const target = `/api/v1${route.path.replace(/:([a-z_]+)/g, () => randomUUID())}`;
      const res = await call(api.url, route.method, target);
      expect(res.status, `${route.method} ${target}`).toBe(route.public ? 200 : 401);
    }
  });

  it('answers an id that is not there with the documented 404', async () => {
    const nobody = randomUUID();
    for (const [method, target] of [
      ['GET', `/api/v1/tasks/${nobody}`],
      ['PATCH', `/api/v1/tasks/${nobody}`],
      ['DELETE', `/api/v1/tasks/${nobody}`],
      ['POST', `/api/v1/tasks/${nobody}/archive`],
      ['POST', `/api/v1/tasks/${nobody}/unarchive`],
      ['GET', `/api/v1/tasks/${nobody}/revisions`],
      ['GET', `/api/v1/workspaces/${nobody}/tasks`],
      ['GET', `/api/v1/workspaces/${nobody}/events`],
      ['GET', `/api/v1/workspaces/${nobody}/webhooks`],
      ['DELETE', `/api/v1/workspaces/${nobody}`],
    ] as const) {
      const res = await call(api.url, method, target, { token, body: method === 'PATCH' ? { title: 'x' } : undefined });
      expect(res.status, `${method} ${target}`).toBe(404);
    }
  });
});

describe('the query parameters the document describes are the ones the server takes', () => {
  const ajv = new Ajv2020({ strict: false });
  /** A query value read as its schema's type says (OpenAPI's form style): an integer is written as a JSON integer. */
  function documentAccepts(parameter: Parameter, value: string): boolean {
    if (value === '') return !('required' in parameter && parameter.required); // REST: an empty value is a missing one
    const integer = parameter.schema.type === 'integer';
    if (integer && !/^-?(0|[1-9][0-9]*)$/.test(value)) return false;
    return ajv.validate(parameter.schema, integer ? Number(value) : value);
  }
  const parametersOf = (template: string): Parameter[] =>
    ((openApiDocument.paths[template]!.get as { parameters: Parameter[] }).parameters ?? []).filter(
      (p) => p.in === 'query',
    );

  const samples: Record<string, string[]> = {
    limit: ['', '0', '1', '2', '50', '200', '201', '500', '501', '-1', '007', '1e3', '0x10', ' 5', '5.5', 'ten'],
    cursor: ['', '1', '99', '2147483647', '01', '-1', 'abc', '1.5'],
    archived: ['', 'include', 'exclude', 'only', 'all', 'INCLUDE'],
    after: ['', '0', '3', '9007199254740991', '9007199254740992', '-1', 'x', '1e2'],
  };

  for (const template of ['/workspaces/{workspace_id}/tasks', '/workspaces/{workspace_id}/events']) {
    it(`${template}: a value the document allows is taken (200), one it refuses is 400`, async () => {
      for (const parameter of parametersOf(template)) {
        for (const value of samples[parameter.name]!) {
          const target = `/api/v1${template.replace('{workspace_id}', ws.id)}?${parameter.name}=${encodeURIComponent(value)}`;
          const res = await call(api.url, 'GET', target, { token });
          expect(res.status, `${parameter.name}=${JSON.stringify(value)}: ${res.text}`).toBe(
            documentAccepts(parameter, value) ? 200 : 400,
          );
        }
      }
    });
  }

  it('names every query parameter of these lists (no sample forgotten)', () => {
    const names = ['/workspaces/{workspace_id}/tasks', '/workspaces/{workspace_id}/events'].flatMap((t) =>
      parametersOf(t).map((p) => p.name),
    );
    expect(names.filter((n) => !samples[n])).toEqual([]);
    expect(openApiPath('/workspaces/:workspace_id/tasks')).toBe('/workspaces/{workspace_id}/tasks');
  });
});
