// REST event endpoints (SPEC §9, §10): history with cursor pagination, the SSE stream, revisions, and webhooks.
import { once } from 'node:events';
import { z } from 'zod';
import { DomainError } from '../domain/errors/domain-error';
import { listEvents, listRevisions } from '../domain/events/history';
import { ZEventPageParams } from '../domain/events/page-params';
import { wholeNumber } from '../domain/paging';
import { openEventStream } from '../domain/events/stream';
import { createWebhook, disableWebhook, listDeliveries, listWebhooks } from '../domain/events/webhooks';
import { readJsonBody, sendJson } from '../http/body';
import { parseQuery, path, type RestRequest, type RestRoute } from './route';

const ZResume = z.object({ last_event_id: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional() });

/** SSE resume point: the `Last-Event-ID` header (what EventSource sends on reconnect), else `?last_event_id=`. */
function lastEventId(r: RestRequest): number | undefined {
  const header = r.req.headers['last-event-id'];
  const raw = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined;
  if (raw === undefined) return parseQuery(ZResume, r.query, ['last_event_id']).last_event_id;
  if (!/^\d{1,15}$/.test(raw)) throw new DomainError('invalid_payload', 'Last-Event-ID must be an event id');
  return Number(raw);
}

const HEARTBEAT_MS = 15_000;

async function stream(r: RestRequest): Promise<void> {
  const after = lastEventId(r);
  const abort = new AbortController();
  r.res.once('close', () => abort.abort());
  // Authorization happens here, before any byte of the stream is written (a refusal is the ordinary 404 body).
  const events = openEventStream(r.services, r.auth.actor, r.params.workspace_id!, after, abort.signal);
  r.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no', // proxies must not buffer a stream
  });
  r.res.write('retry: 2000\n\n');
  const heartbeat = setInterval(() => r.res.write(': ping\n\n'), HEARTBEAT_MS);
  try {
    for await (const e of events) {
      // SSE id = outbox seq: the client's Last-Event-ID on reconnect.
      if (!r.res.write(`id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)) {
        await once(r.res, 'drain', { signal: abort.signal }).catch(() => {});
      }
    }
  } finally {
    clearInterval(heartbeat);
    if (!r.res.writableEnded) r.res.end();
  }
}

export const eventRoutes: RestRoute[] = [
  {
    method: 'GET',
    pattern: path('/workspaces/:workspace_id/events'),
    async handle(r) {
      const params = parseQuery(ZEventPageParams, r.query, ['after', 'limit']);
      const page = await listEvents(r.services, r.auth.actor, { workspaceId: r.params.workspace_id!, ...params });
      sendJson(r.res, 200, page);
    },
  },
  { method: 'GET', pattern: path('/workspaces/:workspace_id/events/stream'), handle: stream },
  {
    method: 'GET',
    pattern: path('/tasks/:id/revisions'),
    async handle(r) {
      sendJson(r.res, 200, { revisions: await listRevisions(r.services, r.auth.actor, r.params.id!) });
    },
  },
  {
    method: 'POST',
    pattern: path('/workspaces/:workspace_id/webhooks'),
    async handle(r) {
      const created = await createWebhook(r.services, r.auth.actor, r.params.workspace_id!, await readJsonBody(r.req, r.services.config.http.maxBodyBytes));
      // The only time the secret leaves the server.
      sendJson(r.res, 201, { ...created.webhook, secret: created.secret });
    },
  },
  {
    method: 'GET',
    pattern: path('/workspaces/:workspace_id/webhooks'),
    async handle(r) {
      sendJson(r.res, 200, { webhooks: await listWebhooks(r.services, r.auth.actor, r.params.workspace_id!) });
    },
  },
  {
    method: 'DELETE',
    pattern: path('/workspaces/:workspace_id/webhooks/:webhook_id'),
    async handle(r) {
      sendJson(r.res, 200, await disableWebhook(r.services, r.auth.actor, r.params.workspace_id!, r.params.webhook_id!));
    },
  },
  {
    method: 'GET',
    pattern: path('/workspaces/:workspace_id/webhooks/:webhook_id/deliveries'),
    async handle(r) {
      const params = parseQuery(ZEventPageParams, r.query, ['after', 'limit']);
      const deliveries = await listDeliveries(r.services, r.auth.actor, {
        workspaceId: r.params.workspace_id!,
        webhookId: r.params.webhook_id!,
        ...params,
      });
      sendJson(r.res, 200, { deliveries });
    },
  },
];
