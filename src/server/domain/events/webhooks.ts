// Per-workspace webhooks (SPEC §9): configure, list, disable, and see every delivery and attempt. Admin only.
// The secret is returned once, by create, and never again (SPEC §11: secrets are never logged).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { can, type Actor } from '../../auth/actor';
import { randomSecret } from '../../auth/secrets';
import type { Row } from '../../db/types';
import { num, numOrNull, str, strOrNull } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { validationError } from '../tasks/create-input';

export const ZCreateWebhookInput = z.object({
  url: z
    .string()
    .max(2000)
    .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), 'url must be an http(s) URL'),
  /** Optional: when absent the server generates one (and returns it once). */
  secret: z.string().min(16, 'secret must be at least 16 characters').max(200).optional(),
  description: z.string().max(500).nullable().optional(),
});
export type TCreateWebhookInput = z.infer<typeof ZCreateWebhookInput>;

export interface WebhookBody {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  created_at: string;
  disabled_at: string | null;
}

const WEBHOOK_COLUMNS = 'id, workspace_id, url, description, created_at, disabled_at';

function toWebhookBody(r: Row): WebhookBody {
  return {
    id: str(r.id),
    workspace_id: str(r.workspace_id),
    url: str(r.url),
    description: strOrNull(r.description),
    created_at: str(r.created_at),
    disabled_at: strOrNull(r.disabled_at),
  };
}

async function requireAdmin(services: Services, actor: Actor, workspaceId: string): Promise<void> {
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
  const ws = await services.db.one('SELECT id FROM workspaces WHERE id = $1', [workspaceId]);
  if (!ws) throw new DomainError('not_found');
}

export async function createWebhook(
  services: Services,
  actor: Actor,
  workspaceId: string,
  body: unknown,
): Promise<{ webhook: WebhookBody; secret: string }> {
  await requireAdmin(services, actor, workspaceId);
  const parsed = ZCreateWebhookInput.safeParse(body);
  if (!parsed.success) throw validationError(parsed.error);
  const secret = parsed.data.secret ?? randomSecret();
  const id = randomUUID();
  const at = new Date().toISOString();
  // A new webhook gets the events that happen after it exists: its cursor starts at the outbox's current end.
  const row = await services.db.one<Row>(
    `INSERT INTO webhooks (id, workspace_id, url, secret, description, cursor_seq, created_at)
     VALUES ($1, $2, $3, $4, $5, (SELECT COALESCE(MAX(seq), 0) FROM outbox_events), $6) RETURNING ${WEBHOOK_COLUMNS}`,
    [id, workspaceId, parsed.data.url, secret, parsed.data.description ?? null, at],
  );
  return { webhook: toWebhookBody(row!), secret };
}

export async function listWebhooks(services: Services, actor: Actor, workspaceId: string): Promise<WebhookBody[]> {
  await requireAdmin(services, actor, workspaceId);
  const rows = await services.db.query<Row>(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE workspace_id = $1 ORDER BY created_at, id`, [
    workspaceId,
  ]);
  return rows.map(toWebhookBody);
}

/** Stops planning and sending; its delivery history stays visible. */
export async function disableWebhook(services: Services, actor: Actor, workspaceId: string, webhookId: string): Promise<WebhookBody> {
  await requireAdmin(services, actor, workspaceId);
  const row = await services.db.one<Row>(
    `UPDATE webhooks SET disabled_at = COALESCE(disabled_at, $3) WHERE id = $1 AND workspace_id = $2 RETURNING ${WEBHOOK_COLUMNS}`,
    [webhookId, workspaceId, new Date().toISOString()],
  );
  if (!row) throw new DomainError('not_found');
  return toWebhookBody(row);
}

export interface AttemptBody {
  attempt: number;
  instance_id: string;
  outcome: string;
  status: number | null;
  error: string | null;
  duration_ms: number | null;
  started_at: string;
  finished_at: string | null;
}

export interface DeliveryBody {
  id: string;
  webhook_id: string;
  event_seq: number;
  event_id: string;
  state: string;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempt_log: AttemptBody[];
}

/** Deliveries of one webhook in seq order, each with its attempts; `after` pages by event seq. */
export async function listDeliveries(
  services: Services,
  actor: Actor,
  input: { workspaceId: string; webhookId: string; after?: number; limit?: number },
): Promise<DeliveryBody[]> {
  await requireAdmin(services, actor, input.workspaceId);
  const hook = await services.db.one('SELECT id FROM webhooks WHERE id = $1 AND workspace_id = $2', [input.webhookId, input.workspaceId]);
  if (!hook) throw new DomainError('not_found');
  const limit = Math.max(1, Math.min(500, Math.floor(input.limit ?? 100)));
  const rows = await services.db.query<Row>(
    `SELECT id, webhook_id, event_seq, event_id, state, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at
       FROM webhook_deliveries WHERE webhook_id = $1 AND event_seq > $2 ORDER BY event_seq LIMIT ${limit}`,
    [input.webhookId, input.after ?? 0],
  );
  if (rows.length === 0) return [];
  const attempts = await services.db.query<Row>(
    `SELECT delivery_id, attempt, instance_id, outcome, status, error, duration_ms, started_at, finished_at
       FROM webhook_attempts WHERE webhook_id = $1 AND delivery_id IN (${rows.map((_, i) => `$${i + 2}`).join(', ')})
       ORDER BY attempt`,
    [input.webhookId, ...rows.map((r) => str(r.id))],
  );
  return rows.map((r) => ({
    id: str(r.id),
    webhook_id: str(r.webhook_id),
    event_seq: num(r.event_seq),
    event_id: str(r.event_id),
    state: str(r.state),
    attempts: num(r.attempts),
    next_attempt_at: str(r.next_attempt_at),
    last_status: numOrNull(r.last_status),
    last_error: strOrNull(r.last_error),
    created_at: str(r.created_at),
    delivered_at: strOrNull(r.delivered_at),
    attempt_log: attempts
      .filter((a) => str(a.delivery_id) === str(r.id))
      .map((a) => ({
        attempt: num(a.attempt),
        instance_id: str(a.instance_id),
        outcome: str(a.outcome),
        status: numOrNull(a.status),
        error: strOrNull(a.error),
        duration_ms: numOrNull(a.duration_ms),
        started_at: str(a.started_at),
        finished_at: strOrNull(a.finished_at),
      })),
  }));
}
