// Release history (SPEC §7, §13): who released which identity when, from which holder, with what result and key.
import type { Actor } from '../../auth/actor';
import type { Sql } from '../../db/types';
import { num, str, strOrNull } from '../../db/values';
import { requireRead, toEvent } from './rows';

export async function readReleases(sql: Sql, actor: Actor, workspaceId: string) {
  requireRead(actor, workspaceId);
  const rows = await sql.query(
    `SELECT r.id, r.idempotency_key, r.actor_id, r.source, r.external_id, r.holder_task_id, r.result_status, r.created_at,
            u.email AS actor_email, k.name AS token_name, t.identifier AS holder_identifier
       FROM release_operations r
       LEFT JOIN users u ON u.id = r.actor_id
       LEFT JOIN api_tokens k ON k.id = r.actor_id
       LEFT JOIN tasks t ON t.id = r.holder_task_id
      WHERE r.workspace_id = $1 ORDER BY r.created_at DESC LIMIT 200`,
    [workspaceId],
  );
  return rows.map((r) => ({
    id: str(r.id),
    idempotency_key: str(r.idempotency_key),
    actor: strOrNull(r.actor_email) ?? (r.token_name ? `token ${str(r.token_name)}` : str(r.actor_id)),
    source: str(r.source),
    external_id: str(r.external_id),
    holder_task_id: strOrNull(r.holder_task_id),
    holder_identifier: strOrNull(r.holder_identifier),
    result: num(r.result_status) === 204 ? ('released' as const) : ('nothing_held_it' as const),
    created_at: str(r.created_at),
  }));
}

/** The workspace's newest events (polled by the console until a live subscription lands, issue 6). */
export async function readEvents(sql: Sql, actor: Actor, workspaceId: string, limit: number) {
  requireRead(actor, workspaceId);
  const rows = await sql.query('SELECT seq, id, task_id, type, revision, payload, created_at FROM outbox_events WHERE workspace_id = $1 ORDER BY seq DESC LIMIT $2', [
    workspaceId,
    limit,
  ]);
  return rows.map(toEvent);
}
