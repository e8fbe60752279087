// The event, revision and webhook bodies as schemas (SPEC §9), for the OpenAPI document and the webhook create request
// every surface parses. Plain zod, no server imports. The TypeScript bodies the domain builds (./outbox.ts,
// ./webhook-bodies.ts) are held equal to these by tests/unit/openapi-bodies.test.ts.
import { z } from 'zod';
import { storedText } from '../text';
import { ZTaskBody } from '../tasks/schemas';

const ZTimestamp = z.iso.datetime().describe('ISO 8601, UTC.');

export const ZEventType = z.enum(['task.created', 'task.updated', 'task.deleted']);

/** An event as every surface delivers it: the immutable payload plus its outbox position (the SSE event id). */
export const ZEventRecord = z.object({
  id: z.string().describe('The event id: the same on every delivery of this event (history, stream, webhook).'),
  type: ZEventType,
  workspace_id: z.string(),
  task_id: z.string(),
  revision: z
    .number()
    .int()
    .describe('The task revision this event records; per task, events arrive in revision order.'),
  occurred_at: ZTimestamp,
  task: ZTaskBody.describe('The task as committed by this change (`external_id` only when it held one).'),
  seq: z
    .number()
    .int()
    .describe('Position in the outbox: pass as `after` (history) or `Last-Event-ID` (stream) to continue.'),
});

export const ZEventPage = z.object({
  events: z.array(ZEventRecord),
  next_after: z
    .number()
    .int()
    .describe('Pass as `after` to continue. No event that commits later can appear at or below it.'),
});

export const ZRevisionBody = z.object({
  task_id: z.string(),
  workspace_id: z.string(),
  revision: z.number().int(),
  change: z.string().describe('What made this revision: create, update, archive, unarchive, release, delete, …'),
  actor_id: z.string().nullable(),
  created_at: ZTimestamp,
  task: ZTaskBody,
});

export const ZRevisionList = z.object({ revisions: z.array(ZRevisionBody) });

/** `POST /workspaces/:id/webhooks` and `event.createWebhook`. */
export const ZCreateWebhookInput = z.object({
  url: storedText(2000)
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'url must be an http(s) URL')
    .describe(
      'Where events are POSTed (http or https). Must lead to a public address (SPEC §9): a host that is a loopback, link-local, private, unique-local, carrier-grade NAT, unspecified or multicast address (or `localhost`) is refused, and a name is checked again on the address it resolves to at every delivery — unless the server lists the network in TETHER_WEBHOOK_ALLOWED_NETWORKS. Redirects are not followed.',
    ),
  /** Optional: when absent the server generates one (and returns it once). */
  secret: storedText(200)
    .min(16, 'secret must be at least 16 characters')
    .optional()
    .describe('HMAC-SHA256 key for `x-tether-signature`; generated when absent. Returned once, by this call.'),
  description: storedText(500).nullable().optional(),
});
export type TCreateWebhookInput = z.infer<typeof ZCreateWebhookInput>;

export const ZWebhookBody = z.object({
  id: z.string(),
  workspace_id: z.string(),
  url: z.string(),
  description: z.string().nullable(),
  created_at: ZTimestamp,
  disabled_at: ZTimestamp.nullable(),
});

export const ZWebhookCreated = ZWebhookBody.extend({
  secret: z.string().describe('The signing secret. Shown this once and never again.'),
});

export const ZWebhookList = z.object({ webhooks: z.array(ZWebhookBody) });

export const ZAttemptBody = z.object({
  attempt: z.number().int(),
  instance_id: z.string(),
  outcome: z.string(),
  status: z.number().int().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number().nullable(),
  started_at: ZTimestamp,
  finished_at: ZTimestamp.nullable(),
});

export const ZDeliveryBody = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_seq: z.number().int(),
  event_id: z.string(),
  state: z.string(),
  attempts: z.number().int(),
  next_attempt_at: ZTimestamp,
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: ZTimestamp,
  delivered_at: ZTimestamp.nullable(),
  attempt_log: z.array(ZAttemptBody),
});

export const ZDeliveryList = z.object({ deliveries: z.array(ZDeliveryBody) });
