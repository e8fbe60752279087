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
import { randomUUID } from 'node:crypto';
import type { Row, Sql } from '../db/types';
import { num, numOrNull, str } from '../db/values';
import { SIGNATURE_HEADER, signBody } from '../domain/events/sign';
import { toEventRecord } from '../domain/events/outbox';
import type { Config } from '../config';
import type { Services } from '../services';

/** config.ts `webhooks` (TETHER_WEBHOOK_LEASE_MS, _TIMEOUT_MS, _BACKOFF_MS: first retry delay, doubled each time,
 *  _MAX_BACKOFF_MS). */
export type WebhookSettings = Config['webhooks'];

/** Delay before retry number `attempts` (1 → backoffMs, 2 → 2×, ...), capped. Never gives up: order and
 *  at-least-once hold; a dead endpoint only holds back its own webhook (disable it to stop). */
export function backoffDelay(settings: WebhookSettings, attempts: number): number {
  return Math.min(settings.maxBackoffMs, settings.backoffMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
}

interface ClaimedWebhook {
  id: string;
  workspaceId: string;
  url: string;
  secret: string;
  cursorSeq: number;
  finalSeq: number | null;
}

const CLAIM_BATCH = 20;

/** Webhooks with something to plan (cursor behind `safe`) or a due pending delivery, leased to this process. */
export async function claimWebhooks(services: Services, safe: number, settings: WebhookSettings): Promise<ClaimedWebhook[]> {
  const now = new Date();
  const until = new Date(now.getTime() + settings.leaseMs).toISOString();
  const skipLocked = services.db.dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : '';
  const rows = await services.db.query<Row>(
    `UPDATE webhooks SET lease_owner = $1, lease_expires_at = $2
      WHERE id IN (SELECT w.id FROM webhooks w
                    WHERE w.disabled_at IS NULL AND (w.lease_expires_at IS NULL OR w.lease_expires_at < $3)
                      AND ((w.cursor_seq < $4 AND (w.final_seq IS NULL OR w.cursor_seq < w.final_seq))
                           OR EXISTS (SELECT 1 FROM webhook_deliveries d
                                       WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= $3))
                    ORDER BY w.id LIMIT ${CLAIM_BATCH}${skipLocked})
        AND (lease_expires_at IS NULL OR lease_expires_at < $3)
      RETURNING id, workspace_id, url, secret, cursor_seq, final_seq`,
    [services.instanceId, until, now.toISOString(), safe],
  );
  return rows.map((r) => ({
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    url: str(r.url),
    secret: str(r.secret),
    cursorSeq: num(r.cursor_seq),
    finalSeq: numOrNull(r.final_seq),
  }));
}

class LeaseLost extends Error {}

/** Turns the workspace's events in (cursor_seq, bound] into pending deliveries, and moves the cursor. */
async function plan(services: Services, hook: ClaimedWebhook, safe: number): Promise<void> {
  const upTo = hook.finalSeq === null ? safe : Math.min(safe, hook.finalSeq);
  while (hook.cursorSeq < upTo) {
    await services.db.transaction(async (tx) => {
      const events = await tx.query<{ seq: unknown; id: unknown }>(
        'SELECT seq, id FROM outbox_events WHERE workspace_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT 200',
        [hook.workspaceId, hook.cursorSeq, upTo],
      );
      const reached = events.length === 200 ? num(events.at(-1)!.seq) : upTo;
      const at = new Date().toISOString();
      if (events.length > 0) {
        const params: unknown[] = [hook.id, at];
        const values = events.map((e) => {
          params.push(randomUUID(), num(e.seq), str(e.id));
          const n = params.length;
          return `($${n - 2}, $1, $${n - 1}, $${n}, 'pending', 0, $2, $2)`;
        });
        await tx.run(
          `INSERT INTO webhook_deliveries (id, webhook_id, event_seq, event_id, state, attempts, next_attempt_at, created_at)
           VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`,
          params,
        );
      }
      // Fenced compare-and-set: only the lease holder, only from the cursor it read.
      const moved = await tx.run('UPDATE webhooks SET cursor_seq = $2 WHERE id = $1 AND lease_owner = $3 AND cursor_seq = $4', [
        hook.id,
        reached,
        services.instanceId,
        hook.cursorSeq,
      ]);
      if (moved === 0) throw new LeaseLost();
      hook.cursorSeq = reached;
    });
  }
}

/** Renews and proves the lease, counts the attempt and records it as `sending` — before the request leaves. */
async function beginAttempt(tx: Sql, services: Services, hook: ClaimedWebhook, deliveryId: string, settings: WebhookSettings): Promise<number | null> {
  const now = new Date();
  const renewed = await tx.run('UPDATE webhooks SET lease_expires_at = $3 WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > $4', [
    hook.id,
    services.instanceId,
    new Date(now.getTime() + settings.leaseMs).toISOString(),
    now.toISOString(),
  ]);
  if (renewed === 0) return null;
  const row = await tx.one<{ attempts: unknown }>(
    "UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = $1 AND state = 'pending' RETURNING attempts",
    [deliveryId],
  );
  if (!row) return null;
  const attempt = num(row.attempts);
  await tx.run(
    `INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, instance_id, outcome, started_at) VALUES ($1, $2, $3, $4, 'sending', $5)`,
    [deliveryId, attempt, hook.id, services.instanceId, now.toISOString()],
  );
  return attempt;
}

interface SendResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

async function send(hook: ClaimedWebhook, body: string, event: { id: string; type: string; seq: number }, deliveryId: string, timeoutMs: number): Promise<SendResult> {
  const started = Date.now();
  try {
    const res = await fetch(hook.url, {
      method: 'POST',
      redirect: 'manual', // a redirect is a failed attempt, never a silent re-post elsewhere
      signal: AbortSignal.timeout(timeoutMs),
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
    await res.body?.cancel().catch(() => {});
    const ok = res.status >= 200 && res.status < 300;
    return { ok, status: res.status, error: ok ? null : `HTTP ${res.status}`, durationMs: Date.now() - started };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : `${e.message}${e.cause?.code ? ` (${e.cause.code})` : ''}`;
    return { ok: false, status: null, error: reason.slice(0, 500), durationMs: Date.now() - started };
  }
}

/** Sends pending deliveries oldest first until one fails, none is due, or the lease is lost. */
async function deliver(services: Services, hook: ClaimedWebhook, settings: WebhookSettings, stopped: () => boolean): Promise<void> {
  const { db } = services;
  while (!stopped()) {
    const d = await db.one<Row>(
      `SELECT d.id, d.event_seq, d.next_attempt_at, e.payload FROM webhook_deliveries d JOIN outbox_events e ON e.seq = d.event_seq
        WHERE d.webhook_id = $1 AND d.state = 'pending' ORDER BY d.event_seq LIMIT 1`,
      [hook.id],
    );
    if (!d || str(d.next_attempt_at) > new Date().toISOString()) return;
    const deliveryId = str(d.id);
    const attempt = await db.transaction((tx) => beginAttempt(tx, services, hook, deliveryId, settings));
    if (attempt === null) return;
    const event = toEventRecord({ seq: d.event_seq, payload: d.payload });
    // The same bytes on every attempt: the stored payload plus its seq (SPEC §9: immutable).
    const body = JSON.stringify(event);
    await services.failpoints.hit('webhook_before_send', event.id);
    const result = await send(hook, body, event, deliveryId, settings.timeoutMs);
    const at = new Date().toISOString();
    await db.transaction(async (tx) => {
      await tx.run(
        'UPDATE webhook_attempts SET outcome = $3, status = $4, error = $5, duration_ms = $6, finished_at = $7 WHERE delivery_id = $1 AND attempt = $2',
        [deliveryId, attempt, result.ok ? 'succeeded' : 'failed', result.status, result.error, result.durationMs, at],
      );
      if (result.ok) {
        await tx.run("UPDATE webhook_deliveries SET state = 'delivered', delivered_at = $2, last_status = $3, last_error = NULL WHERE id = $1", [
          deliveryId,
          at,
          result.status,
        ]);
      } else {
        const next = new Date(Date.now() + backoffDelay(settings, attempt)).toISOString();
        await tx.run('UPDATE webhook_deliveries SET next_attempt_at = $2, last_status = $3, last_error = $4 WHERE id = $1', [
          deliveryId,
          next,
          result.status,
          result.error,
        ]);
      }
    });
    if (!result.ok) return;
  }
}

async function release(services: Services, hookId: string): Promise<void> {
  await services.db.run('UPDATE webhooks SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2', [hookId, services.instanceId]);
}

/** One pass: claim, then plan and send for each claimed webhook concurrently (a slow one holds back only itself). */
export async function webhookPass(services: Services, safe: number, settings: WebhookSettings, stopped: () => boolean): Promise<number> {
  const hooks = await claimWebhooks(services, safe, settings);
  await Promise.all(
    hooks.map(async (hook) => {
      try {
        await plan(services, hook, safe);
        await deliver(services, hook, settings, stopped);
      } catch (err) {
        if (!(err instanceof LeaseLost)) console.error(`webhook ${hook.id} pass failed:`, (err as Error).message);
      } finally {
        await release(services, hook.id).catch(() => {});
      }
    }),
  );
  return hooks.length;
}
