// GET /api/metrics: Prometheus text format. Protected like the rest of the admin surface: an API token with the `admin`
// scope (`tether token create … --scope admin`; Prometheus sends it as a bearer token) or a signed-in instance-wide
// admin. Without a credential → 401; with one that is not an admin → 403. The counters say nothing about any one
// workspace, but their totals span all of them, so workspace members do not get them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Actor } from '../domain/access';
import { DomainError } from '../domain/errors/domain-error';
import type { Services } from '../services';
import { requireAuthenticated } from './authenticate-request';
import { sendError, sendJson } from './body';

function mayScrape(actor: Actor): boolean {
  return actor.global || (actor.kind === 'token' && actor.scopes.has('admin'));
}

export async function handleMetrics(req: IncomingMessage, res: ServerResponse, services: Services): Promise<void> {
  try {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'method not allowed' }, { allow: 'GET, HEAD' });
      return;
    }
    const auth = await requireAuthenticated(services, req);
    if (!mayScrape(auth.actor)) throw new DomainError('forbidden');
    const { contentType, body } = await services.metrics.scrape();
    res.writeHead(200, {
      'content-type': contentType,
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'unauthenticated') res.setHeader('www-authenticate', 'Bearer');
    sendError(res, err, services);
  }
}
