// Release history (SPEC §7, §13): who released which identity when, from which holder, with what result and key.
import type { Actor } from '../../auth/actor';
import type { Repositories } from '../../db/store';
import { requireRead } from './rows';

export async function readReleases(store: Pick<Repositories, 'releases'>, actor: Actor, workspaceId: string) {
  requireRead(actor, workspaceId);
  const releases = await store.releases.listHistory(workspaceId, 200);
  return releases.map((r) => ({
    id: r.id,
    idempotency_key: r.idempotencyKey,
    actor: r.actorEmail ?? (r.actorTokenName !== null ? `token ${r.actorTokenName}` : r.actorId),
    source: r.source,
    external_id: r.externalId,
    holder_task_id: r.holderTaskId,
    holder_identifier: r.holderIdentifier,
    result: r.resultStatus === 204 ? ('released' as const) : ('nothing_held_it' as const),
    reason: r.reason,
    created_at: r.createdAt,
  }));
}

/** The workspace's newest events (polled by the console until a live subscription lands, issue 6). */
export async function readEvents(store: Pick<Repositories, 'console'>, actor: Actor, workspaceId: string, limit: number) {
  requireRead(actor, workspaceId);
  return store.console.recentEvents(workspaceId, limit);
}
