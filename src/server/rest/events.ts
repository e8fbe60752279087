// REST event endpoints (SPEC §9, §10): history with cursor pagination, the SSE stream, revisions, and webhooks.
import { once } from 'node:events';
import { z } from 'zod';
import { listEvents, listRevisions } from '../domain/events/history';
import { parseLastEventId, ZEventPageParams, ZLastEventId, ZStreamResume } from '../domain/events/page-params';
import {
  ZCreateWebhookInput,
  ZDeliveryList,
  ZEventPage,
  ZEventRecord,
  ZRevisionList,
  ZWebhookBody,
  ZWebhookCreated,
  ZWebhookList,
} from '../domain/events/schemas';
import { openEventStream } from '../domain/events/stream';
import { createWebhook, disableWebhook, listDeliveries, listWebhooks } from '../domain/events/webhooks';
import { readJsonBody, sendJson } from '../http/body';
import { parseQuery, type RestRequest, type RestRoute } from './route';

const ZStreamHeaders = z.object({
  'Last-Event-ID': ZLastEventId.optional().describe(
    'Resume after this event `seq`: what EventSource sends when it reconnects.',
  ),
});

/** SSE resume point: the `Last-Event-ID` header (what EventSource sends on reconnect), else `?last_event_id=`. */
function lastEventId(r: RestRequest): number | undefined {
  const header = r.req.headers['last-event-id'];
  return (
    parseLastEventId(typeof header === 'string' ? header : undefined) ??
    parseQuery(ZStreamResume, r.query, ['last_event_id']).last_event_id
  );
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
    path: '/workspaces/:workspace_id/events',
    doc: {
      operationId: 'listEvents',
      tag: 'Events',
      summary: 'Event history of a workspace, in outbox order',
      description:
        'Every `task.created`, `task.updated` and `task.deleted` event, each with the revision and the task as committed (SPEC §9). Continue with `after = next_after`.',
      query: ZEventPageParams,
      ok: { status: 200, description: 'One page of events.', schema: ZEventPage },
      errors: ['validation_failed', 'not_found'],
    },
    async handle(r) {
      const params = parseQuery(ZEventPageParams, r.query, ['after', 'limit']);
      const page = await listEvents(r.services, r.auth.actor, { workspaceId: r.params.workspace_id!, ...params });
      sendJson(r.res, 200, page);
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_id/events/stream',
    doc: {
      operationId: 'streamEvents',
      tag: 'Events',
      summary: 'Live events of a workspace (server-sent events)',
      description:
        'A `text/event-stream`: each event is `id: <seq>`, `event: <type>` and one `data:` line holding the EventRecord as JSON; `: ping` comments keep the connection up. Delivery is at least once, in revision order per task. Without a resume point the stream starts now; with one it first replays every later event.',
      query: ZStreamResume,
      headers: ZStreamHeaders,
      ok: {
        status: 200,
        description: 'The stream; each `data:` line is one EventRecord.',
        schema: ZEventRecord,
        type: 'text/event-stream',
      },
      errors: ['validation_failed', 'not_found'],
    },
    handle: stream,
  },
  {
    method: 'GET',
    path: '/tasks/:id/revisions',
    doc: {
      operationId: 'listRevisions',
      tag: 'Events',
      summary: "A task's revision history",
      description: 'Kept after the task is deleted (SPEC §9).',
      ok: { status: 200, description: 'Every revision, oldest first.', schema: ZRevisionList },
      errors: ['task_not_found'],
    },
    async handle(r) {
      sendJson(r.res, 200, { revisions: await listRevisions(r.services, r.auth.actor, r.params.id!) });
    },
  },
  {
    method: 'POST',
    path: '/workspaces/:workspace_id/webhooks',
    doc: {
      operationId: 'createWebhook',
      tag: 'Webhooks',
      summary: "Send a workspace's events to a URL",
      description:
        'Admin only. Each event is POSTed as an EventRecord, signed with HMAC-SHA256 of the body in `x-tether-signature`, at least once, in revision order per task; a new webhook gets the events after it exists.',
      body: { schema: ZCreateWebhookInput },
      ok: { status: 201, description: 'The webhook, with its secret (shown this once).', schema: ZWebhookCreated },
      errors: ['validation_failed', 'not_found'],
    },
    async handle(r) {
      const created = await createWebhook(
        r.services,
        r.auth.actor,
        r.params.workspace_id!,
        await readJsonBody(r.req, r.services.config.http.maxBodyBytes),
      );
      // The only time the secret leaves the server.
      sendJson(r.res, 201, { ...created.webhook, secret: created.secret });
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_id/webhooks',
    doc: {
      operationId: 'listWebhooks',
      tag: 'Webhooks',
      summary: "A workspace's webhooks",
      description: 'Admin only. Secrets are never shown again.',
      ok: { status: 200, description: 'Every webhook, disabled ones included.', schema: ZWebhookList },
      errors: ['not_found'],
    },
    async handle(r) {
      sendJson(r.res, 200, { webhooks: await listWebhooks(r.services, r.auth.actor, r.params.workspace_id!) });
    },
  },
  {
    method: 'DELETE',
    path: '/workspaces/:workspace_id/webhooks/:webhook_id',
    doc: {
      operationId: 'disableWebhook',
      tag: 'Webhooks',
      summary: 'Disable a webhook',
      description: 'Admin only. It stops planning and sending; its delivery history stays readable.',
      ok: { status: 200, description: 'The webhook, disabled.', schema: ZWebhookBody },
      errors: ['not_found'],
    },
    async handle(r) {
      sendJson(
        r.res,
        200,
        await disableWebhook(r.services, r.auth.actor, r.params.workspace_id!, r.params.webhook_id!),
      );
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_id/webhooks/:webhook_id/deliveries',
    doc: {
      operationId: 'listDeliveries',
      tag: 'Webhooks',
      summary: "A webhook's deliveries, each with its attempts",
      description: 'Admin only. In event order; `after` pages by event `seq`.',
      query: ZEventPageParams,
      ok: { status: 200, description: 'One page of deliveries.', schema: ZDeliveryList },
      errors: ['validation_failed', 'not_found'],
    },
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
