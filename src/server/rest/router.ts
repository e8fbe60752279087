// REST edge under /api/v1 (SPEC §10): match a route, authenticate, let the handler call the domain.
// Errors leave through sendError, so every status and message comes from the one error table.
import { refuseMalformedQuery, sendError, sendJson } from '../http/body';
import { requireAuthenticated } from '../http/authenticate-request';
import type { ApiHandler } from '../http/types';
import { attachmentRoutes } from './attachments';
import { documentRoute } from './document';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { path, type RestRoute } from './route';
import { eventRoutes } from './events';
import { taskRoutes } from './tasks';
import { workspaceRoutes } from './workspaces';

/** Every REST route; the OpenAPI document (./openapi.ts) is computed from this table, itself included. */
export const restRoutes: readonly RestRoute[] = [
  ...taskRoutes,
  ...eventRoutes,
  ...workspaceRoutes,
  ...attachmentRoutes,
  documentRoute(() => openApiDocument),
];

/** GET /api/v1/openapi.json: computed once from the table above; routes and schemas do not change while we run. */
export const openApiDocument: OpenApiDocument = buildOpenApiDocument(restRoutes);

/** Each route's matcher and the label it is counted and logged under, worked out once rather than on every request. */
const matchers = restRoutes.map((route) => {
  const pattern = path(route.path);
  return { route, pattern, template: templateOf(pattern) };
});
/** The matchers of each method, in the table's order: a request tries only its own method's routes. */
const byMethod = new Map<string, typeof matchers>();
for (const m of matchers) {
  const list = byMethod.get(m.route.method);
  if (list) list.push(m);
  else byMethod.set(m.route.method, [m]);
}

export const handleRest: ApiHandler = async (req, res, services) => {
  try {
    const url = requestUrl(req.url ?? '/');
    const method = req.method ?? 'GET';
    for (const { route, pattern, template } of byMethod.get(method) ?? []) {
      const m = pattern.exec(url.pathname);
      if (!m) continue;
      const entry = services.requests.of(req);
      if (entry) entry.route = template; // the pattern, never the path: ids in metric labels would grow without bound
      const params: Record<string, string> = {};
      for (const name in m.groups) params[name] = safeDecode(m.groups[name]!);
      if (route.public) {
        refuseMalformedQuery(req.url);
        await route.handle({ req, res, services, params, query: url.searchParams });
        return;
      }
      const auth = await requireAuthenticated(services, req);
      refuseMalformedQuery(req.url); // `%FE` must not be read as U+FFFD: two ids would become one (SPEC §2.1)
      await route.handle({ req, res, services, params, query: url.searchParams, auth });
      return;
    }
    // No route of this method: 405 when another method's route has the path, else 404.
    if (matchers.some(({ pattern }) => pattern.test(url.pathname))) sendJson(res, 405, { error: 'method not allowed' });
    else sendJson(res, 404, { error: 'not found' });
  } catch (err) {
    sendError(res, err, services);
  }
};

/**
 * A plain target (letters, digits, `-`, `_` and `/` in its path; a query without a fragment) is split by hand: WHATWG
 * URL parsing would give the same path and parameters, at a few µs a request. Anything else — dot segments,
 * escapes, other characters — is parsed as a URL, as every target was before.
 */
const PLAIN_TARGET = /^\/[A-Za-z0-9_\-/]*(\?[^#]*)?$/;

function requestUrl(target: string): { pathname: string; searchParams: URLSearchParams } {
  if (!PLAIN_TARGET.test(target)) return new URL(target, 'http://localhost');
  const q = target.indexOf('?');
  return q === -1
    ? { pathname: target, searchParams: new URLSearchParams() }
    : { pathname: target.slice(0, q), searchParams: new URLSearchParams(target.slice(q + 1)) };
}

/** `^/api/v1/tasks/(?<id>[^/]+)/?$` → `/api/v1/tasks/:id`. */
function templateOf(pattern: RegExp): string {
  return pattern.source
    .replace(/\\\//g, '/')
    .replace(/^\^/, '')
    .replace(/\/\?\$$/, '')
    .replace(/\(\?<([a-z_]+)>\[\^\/\]\+\)/g, ':$1');
}

function safeDecode(v: string): string {
  if (!v.includes('%')) return v;
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
