// REST edge under /api/v1 (SPEC §10): authenticate, match a route, let the handler call the domain.
// Errors leave through sendError, so every status and message comes from the one error table.
import { refuseMalformedQuery, sendError, sendJson } from '../http/body';
import { requireAuthenticated } from '../http/authenticate-request';
import type { ApiHandler } from '../http/types';
import type { RestRoute } from './route';
import { attachmentRoutes } from './attachments';
import { eventRoutes } from './events';
import { taskRoutes } from './tasks';
import { workspaceRoutes } from './workspaces';

/** Every REST route. Other modules add theirs here (attachments, events, workspaces). */
export const restRoutes: RestRoute[] = [...taskRoutes, ...eventRoutes, ...workspaceRoutes, ...attachmentRoutes];

/** Each route with the label it is counted and logged under, worked out once rather than on every request. */
const labelled = restRoutes.map((route) => ({ route, template: templateOf(route.pattern) }));

export const handleRest: ApiHandler = async (req, res, services) => {
  try {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    let pathMatched = false;
    for (const { route, template } of labelled) {
      const m = route.pattern.exec(url.pathname);
      if (!m) continue;
      pathMatched = true;
      if (route.method !== method) continue;
      services.requests.noteRoute(template); // the pattern, never the path (issue 17: metrics, logs)
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(m.groups ?? {})) params[k] = safeDecode(v);
      const auth = await requireAuthenticated(services, req.headers, method);
      refuseMalformedQuery(req.url); // issue 18: `%FE` must not be read as U+FFFD (SPEC §2.1)
      await route.handle({ req, res, services, auth, params, query: url.searchParams });
      return;
    }
    if (pathMatched) sendJson(res, 405, { error: 'method not allowed' });
    else sendJson(res, 404, { error: 'not found' });
  } catch (err) {
    sendError(res, err, services);
  }
};

/** `^/api/v1/tasks/(?<id>[^/]+)/?$` → `/api/v1/tasks/:id`. */
function templateOf(pattern: RegExp): string {
  return pattern.source
    .replace(/\\\//g, '/')
    .replace(/^\^/, '')
    .replace(/\/\?\$$/, '')
    .replace(/\(\?<([a-z_]+)>\[\^\/\]\+\)/g, ':$1');
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
