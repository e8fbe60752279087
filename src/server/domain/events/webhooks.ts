// Per-workspace webhooks (SPEC §9): configure, list, disable, and see every delivery and attempt. Admin only.
// The secret is returned once, by create, and never again (SPEC §11: secrets are never logged).
import { randomUUID } from 'node:crypto';
import { can, type Actor } from '../access';
import { randomSecret } from '../../auth/secrets';
import type { Services } from '../../services';
import type { AttemptBody, DeliveryBody, WebhookBody } from './webhook-bodies';

export type { AttemptBody, DeliveryBody, WebhookBody };
import { DomainError } from '../errors/domain-error';
import { validationError } from '../tasks/create-input';
import { ZCreateWebhookInput } from './schemas';

export { ZCreateWebhookInput, type TCreateWebhookInput } from './schemas';

async function requireAdmin(services: Services, actor: Actor, workspaceId: string): Promise<void> {
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
  if (!(await services.store.workspaces.find(workspaceId))) throw new DomainError('not_found');
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
  // SPEC §9: a destination inside the network is refused here, with nothing stored (and again at every delivery).
  const refusal = services.destinations.urlRefusal(parsed.data.url);
  if (refusal) throw new DomainError('validation_failed', `url: ${refusal}`);
  const secret = parsed.data.secret ?? randomSecret();
  // A new webhook gets the events that happen after it exists (the repository starts its cursor at the outbox's end).
  const webhook = await services.store.webhooks.create({
    id: randomUUID(),
    workspaceId,
    url: parsed.data.url,
    secret,
    description: parsed.data.description ?? null,
    createdAt: new Date().toISOString(),
  });
  return { webhook, secret };
}

export async function listWebhooks(services: Services, actor: Actor, workspaceId: string): Promise<WebhookBody[]> {
  await requireAdmin(services, actor, workspaceId);
  return services.store.webhooks.list(workspaceId);
}

/** Stops planning and sending; its delivery history stays visible. */
export async function disableWebhook(
  services: Services,
  actor: Actor,
  workspaceId: string,
  webhookId: string,
): Promise<WebhookBody> {
  await requireAdmin(services, actor, workspaceId);
  const webhook = await services.store.webhooks.disable(workspaceId, webhookId, new Date().toISOString());
  if (!webhook) throw new DomainError('not_found');
  return webhook;
}

/** Deliveries of one webhook in seq order, each with its attempts; `after` pages by event seq. */
export async function listDeliveries(
  services: Services,
  actor: Actor,
  input: { workspaceId: string; webhookId: string; after?: number; limit?: number },
): Promise<DeliveryBody[]> {
  await requireAdmin(services, actor, input.workspaceId);
  if (!(await services.store.webhooks.exists(input.workspaceId, input.webhookId))) throw new DomainError('not_found');
  const limit = Math.max(1, Math.min(500, Math.floor(input.limit ?? 100)));
  return services.store.webhooks.listDeliveries(input.webhookId, input.after ?? 0, limit);
}
