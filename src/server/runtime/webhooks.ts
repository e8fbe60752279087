// SPEC §9: webhook delivery — at-least-once, in seq order per webhook (so in revision order per task), signed,
// retried with exponential backoff, every attempt recorded. All state is in the database (0002_events.sql), so a
// restart loses nothing and several server processes can run this at once:
//   claim  — a conditional UPDATE takes a lease on the webhook row (PostgreSQL adds FOR UPDATE SKIP LOCKED): one
//            process at a time plans and sends for a webhook;
//   plan   — events of its workspace in (cursor_seq, final bound] become delivery rows (unique per webhook+event);
//   send   — the oldest pending delivery only: a failure holds back later events (per-task order) until it succeeds.
// The lease is renewed (and proven) in the transaction that records the attempt, right before each request, and the
// request timeout is under half the lease: no other process can claim the webhook while a request is in flight. A
// process that dies mid-request leaves a `sending` attempt; after its lease expires another process re-sends the
// same event (same event id) — the documented at-least-once duplicate.
// Where a request may go is the destination policy's decision, made on the address actually connected to
// (outbound-http.ts): a refused destination is a failed attempt with one fixed error, retried like any other.
import { randomUUID } from 'node:crypto';
import type { AttemptResult, ClaimedWebhook } from '../db/repositories/webhooks';
import type { TxRepositories } from '../db/store';
import { SIGNATURE_HEADER, signBody } from '../domain/events/sign';
import type { Config } from '../config';
import type { Services } from '../services';
import { postGuarded } from './outbound-http';

/** config.ts `webhooks` (TETHER_WEBHOOK_LEASE_MS, _TIMEOUT_MS, _BACKOFF_MS: first retry delay, doubled each time,
 *  _MAX_BACKOFF_MS). */
export type WebhookSettings = Config['webhooks'];

/** Delay before retry number `attempts` (1 → backoffMs, 2 → 2×, ...), capped. Never gives up: order and
 *  at-least-once hold; a dead endpoint only holds back its own webhook (disable it to stop). */
export function backoffDelay(settings: WebhookSettings, attempts: number): number {
  return Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

const CLAIM_BATCH = 20;
const PLAN_PAGE = 200;

/** Webhooks with something to plan (cursor behind `safe`) or a due pending delivery, leased to this process. */
export async function claimWebhooks(
  services: Services,
  safe: number,
  settings: WebhookSettings,
): Promise<ClaimedWebhook[]> {
  const now = new Date();
  return services.store.webhooks.claim({
    owner: services.instanceId,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + settings.leaseMs).toISOString(),
    safe,
    limit: CLAIM_BATCH,
  });
}

class LeaseLost extends Error {}

/** Turns the workspace's events in (cursor_seq, bound] into pending deliveries, and moves the cursor. */
async function plan(services: Services, hook: ClaimedWebhook, safe: number): Promise<void> {
  const upTo = hook.finalSeq === null ? safe : Math.min(safe, hook.finalSeq);
  while (hook.cursorSeq < upTo) {
    await services.store.transaction(async (tx) => {
      const events = await tx.events.listEventKeys({
        workspaceId: hook.workspaceId,
        after: hook.cursorSeq,
        upTo,
        limit: PLAN_PAGE,
      });
      const reached = events.length === PLAN_PAGE ? events.at(-1)!.seq : upTo;
      const deliveries = events.map((e) => ({ id: randomUUID(), eventSeq: e.seq, eventId: e.id }));
      await tx.webhooks.insertDeliveries(hook.id, deliveries, new Date().toISOString());
      if (!(await tx.webhooks.moveCursor(hook.id, services.instanceId, hook.cursorSeq, reached))) throw new LeaseLost();
      hook.cursorSeq = reached;
    });
  }
}

/** Renews and proves the lease, counts the attempt and records it as `sending` — before the request leaves. */
async function beginAttempt(
  tx: TxRepositories,
  services: Services,
  hook: ClaimedWebhook,
  deliveryId: string,
  settings: WebhookSettings,
): Promise<number | null> {
  const now = new Date();
  const until = new Date(now.getTime() + settings.leaseMs).toISOString();
  if (!(await tx.webhooks.renewLease(hook.id, services.instanceId, now.toISOString(), until))) return null;
  const attempt = await tx.webhooks.countAttempt(deliveryId);
  if (attempt === undefined) return null;
  await tx.webhooks.insertAttempt({
    deliveryId,
    attempt,
    webhookId: hook.id,
    instanceId: services.instanceId,
    startedAt: now.toISOString(),
  });
  return attempt;
}

/** One attempt: the signed body to the webhook's URL, through the destination policy (SPEC §9, outbound-http.ts). */
async function send(
  services: Services,
  hook: ClaimedWebhook,
  body: string,
  event: { id: string; type: string; seq: number },
  deliveryId: string,
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = Date.now();
  const result = await postGuarded(services.destinations, hook.url, {
    timeoutMs,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Tether-Webhooks/1',
      'x-tether-event-id': event.id,
      'x-tether-event-type': event.type,
      'x-tether-event-seq': String(event.seq),
      'x-tether-delivery-id': deliveryId,
      [SIGNATURE_HEADER]: signBody(hook.secret, body),
    },
    body,
  });
  return { ...result, durationMs: Date.now() - started };
}

/** Sends pending deliveries oldest first until one fails, none is due, or the lease is lost. */
async function deliver(
  services: Services,
  hook: ClaimedWebhook,
  settings: WebhookSettings,
  stopped: () => boolean,
): Promise<void> {
  const { store } = services;
  while (!stopped()) {
    const d = await store.webhooks.nextPendingDelivery(hook.id);
    if (!d || d.nextAttemptAt > new Date().toISOString()) return;
    const attempt = await store.transaction((tx) => beginAttempt(tx, services, hook, d.id, settings));
    if (attempt === null) return;
    // The same bytes on every attempt: the stored payload plus its seq (SPEC §9: immutable).
    const body = JSON.stringify(d.event);
    await services.failpoints.hit('webhook_before_send', d.event.id);
    const result = await send(services, hook, body, d.event, d.id, settings.timeoutMs);
    services.metrics.webhookDeliveries.inc({ result: result.ok ? 'delivered' : 'failed' });
    const at = new Date().toISOString();
    await store.transaction(async (tx) => {
      await tx.webhooks.finishAttempt(d.id, attempt, result, at);
      if (result.ok) await tx.webhooks.markDelivered(d.id, result.status, at);
      else
        await tx.webhooks.scheduleRetry(
          d.id,
          new Date(Date.now() + backoffDelay(settings, attempt)).toISOString(),
          result.status,
          result.error,
        );
    });
    if (!result.ok) return;
  }
}

/** One pass: claim, then plan and send for each claimed webhook concurrently (a slow one holds back only itself). */
export async function webhookPass(
  services: Services,
  safe: number,
  settings: WebhookSettings,
  stopped: () => boolean,
): Promise<number> {
  const hooks = await claimWebhooks(services, safe, settings);
  await Promise.all(
    hooks.map(async (hook) => {
      try {
        await plan(services, hook, safe);
        await deliver(services, hook, settings, stopped);
      } catch (err) {
        if (!(err instanceof LeaseLost))
          services.log.warn({ webhook_id: hook.id, err: (err as Error).message }, 'webhook pass failed');
      } finally {
        await services.store.webhooks.releaseLease(hook.id, services.instanceId).catch(() => {});
      }
    }),
  );
  return hooks.length;
}
