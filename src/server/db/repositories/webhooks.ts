// Webhooks (SPEC §9). Configuration and the delivery history an admin reads are cold paths on Prisma Client; what the
// delivery loop does (claims, planning, attempts) runs on the driver, in the transactions runtime/webhooks.ts opens.
// The lease columns fence every write of the loop: only the process holding a webhook's lease plans or sends for it.
import type { AttemptBody, DeliveryBody, WebhookBody } from '../../domain/events/webhook-bodies';
import type { EventRecord } from '../../model/events';
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { num, numOrNull, str } from '../values';
import { toEventRecord, type EventRow } from './events';

/** A webhook leased to this process for one pass of the delivery loop. */
export interface ClaimedWebhook {
  id: string;
  workspaceId: string;
  url: string;
  secret: string;
  cursorSeq: number;
  /** Set when the workspace was deleted: nothing after this seq is planned. */
  finalSeq: number | null;
}

/** The oldest pending delivery of a webhook, with the event it carries. */
export interface PendingDelivery {
  id: string;
  nextAttemptAt: string;
  event: EventRecord;
}

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

const WEBHOOK_SELECT = {
  id: true,
  workspaceId: true,
  url: true,
  description: true,
  createdAt: true,
  disabledAt: true,
} as const;

function toWebhookBody(w: {
  id: string;
  workspaceId: string;
  url: string;
  description: string | null;
  createdAt: Date;
  disabledAt: Date | null;
}): WebhookBody {
  return {
    id: w.id,
    workspace_id: w.workspaceId,
    url: w.url,
    description: w.description,
    created_at: w.createdAt.toISOString(),
    disabled_at: w.disabledAt?.toISOString() ?? null,
  };
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class WebhookRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  // ---- the delivery loop (driver) ------------------------------------------------------------------------------

  /**
   * Leases to `owner` up to `limit` webhooks with something to plan (cursor behind `safe`, and before its final
   * seq) or whose OLDEST pending delivery is due at `now` — only that one is ever sent (per-task order), so a later
   * delivery queued behind one waiting out its backoff must not make the webhook claimable: the relay drains while
   * it claims something, and would spin until the backoff ends. A conditional UPDATE: a webhook whose lease is live is not taken;
   * claimers polling together skip each other's rows (`skipLocked`).
   */
  async claim(q: {
    owner: string;
    now: string;
    leaseUntil: string;
    safe: number;
    limit: number;
  }): Promise<ClaimedWebhook[]> {
    const rows = await this.sql.query<{
      id: unknown;
      workspace_id: unknown;
      url: unknown;
      secret: unknown;
      cursor_seq: unknown;
      final_seq: unknown;
    }>(
      `UPDATE webhooks SET lease_owner = $1, lease_expires_at = $2
        WHERE id IN (SELECT w.id FROM webhooks w
                      WHERE w.disabled_at IS NULL AND (w.lease_expires_at IS NULL OR w.lease_expires_at < $3)
                        AND ((w.cursor_seq < $4 AND (w.final_seq IS NULL OR w.cursor_seq < w.final_seq))
                             OR EXISTS (SELECT 1 FROM webhook_deliveries d
                                         WHERE d.webhook_id = w.id AND d.state = 'pending' AND d.next_attempt_at <= $3
                                           AND d.event_seq = (SELECT MIN(h.event_seq) FROM webhook_deliveries h
                                                               WHERE h.webhook_id = w.id AND h.state = 'pending')))
                      ORDER BY w.id LIMIT $5${this.dialect.skipLocked})
          AND (lease_expires_at IS NULL OR lease_expires_at < $3)
        RETURNING id, workspace_id, url, secret, cursor_seq, final_seq`,
      [q.owner, q.leaseUntil, q.now, q.safe, q.limit],
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

  /** Pending deliveries for the given events; one already planned (same webhook and event) is left as it is. */
  async insertDeliveries(
    webhookId: string,
    deliveries: Array<{ id: string; eventSeq: number; eventId: string }>,
    at: string,
  ): Promise<void> {
    if (deliveries.length === 0) return;
    const params: unknown[] = [webhookId, at];
    const values = deliveries.map((d) => {
      params.push(d.id, d.eventSeq, d.eventId);
      const n = params.length;
      return `($${n - 2}, $1, $${n - 1}, $${n}, 'pending', 0, $2, $2)`;
    });
    await this.sql.run(
      `INSERT INTO webhook_deliveries (id, webhook_id, event_seq, event_id, state, attempts, next_attempt_at, created_at)
       VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`,
      params,
    );
  }

  /** Fenced compare-and-set of the planning cursor: only the lease holder, only from the cursor it read. */
  async moveCursor(webhookId: string, owner: string, from: number, to: number): Promise<boolean> {
    const moved = await this.sql.run(
      'UPDATE webhooks SET cursor_seq = $2 WHERE id = $1 AND lease_owner = $3 AND cursor_seq = $4',
      [webhookId, to, owner, from],
    );
    return moved > 0;
  }

  /** Extends a lease `owner` still holds at `now`; false when it has expired or been taken. */
  async renewLease(webhookId: string, owner: string, now: string, until: string): Promise<boolean> {
    const renewed = await this.sql.run(
      'UPDATE webhooks SET lease_expires_at = $3 WHERE id = $1 AND lease_owner = $2 AND lease_expires_at > $4',
      [webhookId, owner, until, now],
    );
    return renewed > 0;
  }

  async releaseLease(webhookId: string, owner: string): Promise<void> {
    await this.sql.run(
      'UPDATE webhooks SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2',
      [webhookId, owner],
    );
  }

  async nextPendingDelivery(webhookId: string): Promise<PendingDelivery | undefined> {
    const row = await this.sql.one<EventRow & { id: unknown; next_attempt_at: unknown }>(
      `SELECT d.id, d.next_attempt_at, e.seq, e.event_id, e.event_type, e.workspace_id, e.task_id, e.revision, e.created_at, e.snapshot
        FROM webhook_deliveries d JOIN task_revisions e ON e.seq = d.event_seq
        WHERE d.webhook_id = $1 AND d.state = 'pending' ORDER BY d.event_seq LIMIT 1`,
      [webhookId],
    );
    return row ? { id: str(row.id), nextAttemptAt: str(row.next_attempt_at), event: toEventRecord(row) } : undefined;
  }

  /** Counts one more attempt of a delivery that is still pending: its number, or undefined. */
  async countAttempt(deliveryId: string): Promise<number | undefined> {
    const row = await this.sql.one<{ attempts: unknown }>(
      "UPDATE webhook_deliveries SET attempts = attempts + 1 WHERE id = $1 AND state = 'pending' RETURNING attempts",
      [deliveryId],
    );
    return row ? num(row.attempts) : undefined;
  }

  /** Records an attempt as `sending`, before its request leaves: a process that dies mid-request leaves this row. */
  async insertAttempt(a: {
    deliveryId: string;
    attempt: number;
    webhookId: string;
    instanceId: string;
    startedAt: string;
  }): Promise<void> {
    await this.sql.run(
      `INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, instance_id, outcome, started_at) VALUES ($1, $2, $3, $4, 'sending', $5)`,
      [a.deliveryId, a.attempt, a.webhookId, a.instanceId, a.startedAt],
    );
  }

  async finishAttempt(deliveryId: string, attempt: number, result: AttemptResult, at: string): Promise<void> {
    await this.sql.run(
      'UPDATE webhook_attempts SET outcome = $3, status = $4, error = $5, duration_ms = $6, finished_at = $7 WHERE delivery_id = $1 AND attempt = $2',
      [deliveryId, attempt, result.ok ? 'succeeded' : 'failed', result.status, result.error, result.durationMs, at],
    );
  }

  async markDelivered(deliveryId: string, status: number | null, at: string): Promise<void> {
    await this.sql.run(
      "UPDATE webhook_deliveries SET state = 'delivered', delivered_at = $2, last_status = $3, last_error = NULL WHERE id = $1",
      [deliveryId, at, status],
    );
  }

  async scheduleRetry(
    deliveryId: string,
    nextAttemptAt: string,
    status: number | null,
    error: string | null,
  ): Promise<void> {
    await this.sql.run(
      'UPDATE webhook_deliveries SET next_attempt_at = $2, last_status = $3, last_error = $4 WHERE id = $1',
      [deliveryId, nextAttemptAt, status, error],
    );
  }

  /** SPEC §8: the workspace's webhooks still deliver its events up to its last one (in this transaction), then stop. */
  async endAtLastEventOf(workspaceId: string): Promise<void> {
    await this.sql.run(
      'UPDATE webhooks SET final_seq = (SELECT COALESCE(MAX(seq), 0) FROM task_revisions WHERE workspace_id = $1 AND event_type IS NOT NULL) WHERE workspace_id = $1',
      [workspaceId],
    );
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdWebhookRepository extends WebhookRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  // ---- configuration (Prisma Client) ---------------------------------------------------------------------------

  // Seqs go to Prisma as numbers: the SQLite client types some of these columns Int, the PostgreSQL one BigInt
  // (which accepts a number too); they come back as either, so reads go through Number().

  /** A new webhook's cursor starts at the newest revision's seq: it gets the events that happen after it exists. */
  async create(w: {
    id: string;
    workspaceId: string;
    url: string;
    secret: string;
    description: string | null;
    createdAt: string;
  }): Promise<WebhookBody> {
    const prisma = await this.prisma();
    const end = await prisma.taskRevision.aggregate({ _max: { seq: true } });
    const created = await prisma.webhook.create({
      data: { ...w, cursorSeq: Number(end._max.seq ?? 0), createdAt: new Date(w.createdAt) },
      select: WEBHOOK_SELECT,
    });
    return toWebhookBody(created);
  }

  async list(workspaceId: string): Promise<WebhookBody[]> {
    const prisma = await this.prisma();
    const rows = await prisma.webhook.findMany({
      where: { workspaceId },
      select: WEBHOOK_SELECT,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toWebhookBody);
  }

  async exists(workspaceId: string, webhookId: string): Promise<boolean> {
    const prisma = await this.prisma();
    return (await prisma.webhook.findFirst({ where: { id: webhookId, workspaceId }, select: { id: true } })) !== null;
  }

  /** Sets `disabled_at` once (a second disable keeps the first time); undefined when the webhook is not there. */
  async disable(workspaceId: string, webhookId: string, at: string): Promise<WebhookBody | undefined> {
    const prisma = await this.prisma();
    await prisma.webhook.updateMany({
      where: { id: webhookId, workspaceId, disabledAt: null },
      data: { disabledAt: new Date(at) },
    });
    const row = await prisma.webhook.findFirst({ where: { id: webhookId, workspaceId }, select: WEBHOOK_SELECT });
    return row ? toWebhookBody(row) : undefined;
  }

  /** Deliveries with event seq > `after`, in seq order, each with its attempts in order. */
  async listDeliveries(webhookId: string, after: number, limit: number): Promise<DeliveryBody[]> {
    const prisma = await this.prisma();
    const deliveries = await prisma.webhookDelivery.findMany({
      where: { webhookId, eventSeq: { gt: after } },
      orderBy: { eventSeq: 'asc' },
      take: limit,
      select: {
        id: true,
        webhookId: true,
        eventSeq: true,
        eventId: true,
        state: true,
        attempts: true,
        nextAttemptAt: true,
        lastStatus: true,
        lastError: true,
        createdAt: true,
        deliveredAt: true,
      },
    });
    if (deliveries.length === 0) return [];
    const attempts = await prisma.webhookAttempt.findMany({
      where: { webhookId, deliveryId: { in: deliveries.map((d) => d.id) } },
      orderBy: { attempt: 'asc' },
      select: {
        deliveryId: true,
        attempt: true,
        instanceId: true,
        outcome: true,
        status: true,
        error: true,
        durationMs: true,
        startedAt: true,
        finishedAt: true,
      },
    });
    return deliveries.map((d) => ({
      id: d.id,
      webhook_id: d.webhookId,
      event_seq: Number(d.eventSeq),
      event_id: d.eventId,
      state: d.state,
      attempts: d.attempts,
      next_attempt_at: d.nextAttemptAt.toISOString(),
      last_status: d.lastStatus,
      last_error: d.lastError,
      created_at: d.createdAt.toISOString(),
      delivered_at: d.deliveredAt?.toISOString() ?? null,
      attempt_log: attempts
        .filter((a) => a.deliveryId === d.id)
        .map((a): AttemptBody => ({
          attempt: a.attempt,
          instance_id: a.instanceId,
          outcome: a.outcome,
          status: a.status,
          error: a.error,
          duration_ms: a.durationMs,
          started_at: a.startedAt.toISOString(),
          finished_at: a.finishedAt?.toISOString() ?? null,
        })),
    }));
  }
}
