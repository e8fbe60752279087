// An identity's history (SPEC §13): for one external id, every task that held it — from the creation operations that
// made them (kept forever) and the releases that freed them (SPEC §7: kept forever) — how each hold ended, every
// release (who, when, which channel, why), and which task holds it now. Deleted tasks are named from the revisions they
// left (SPEC §9).
import { readTypedEscapes } from '../../../lib/visible-id';
import { visibleWorkspaces, type Actor } from '../access';
import type { Repositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import { requireExternalId } from '../identity/normalize';
import { withLookalikes } from './lookalikes';
import { consoleTask, requireRead, type ConsoleActor } from './rows';

/** Enough for any real identity; a longer history shows its newest releases and oldest creates. */
const HISTORY_LIMIT = 500;

export type HoldEnd = 'holds' | 'released' | 'deleted' | 'aborted' | 'unknown';

export interface PastHolder {
  task_id: string;
  /** Null when nothing is left to name it by (a create undone before its first revision). */
  identifier: string | null;
  title: string | null;
  /** Whether the task still exists (it keeps its history after a release; a deleted one is gone). */
  exists: boolean;
  since: string;
  /** How the hold ended: it still holds it, released (SPEC §7), deleted (§8), its create aborted (§4.4). */
  ended: HoldEnd;
  until: string | null;
  created_by: ConsoleActor | null;
  operation_id: string | null;
}

export interface IdentityRelease {
  id: string;
  at: string;
  actor: ConsoleActor;
  source: string;
  reason: string | null;
  result: 'released' | 'nothing_held_it';
  holder_task_id: string | null;
  holder_identifier: string | null;
  idempotency_key: string;
  request_id: string | null;
}

type HistoryStore = Pick<Repositories, 'console' | 'identities' | 'releases'>;

const unknownActor = (id: string): ConsoleActor => ({ id, kind: 'unknown', label: id.slice(0, 8) });

/** The history of a normalized id; the actor's read access is the caller's to check. */
export async function historyOf(store: HistoryStore, workspaceId: string, externalId: string) {
  const [current, operations, releaseRows] = await Promise.all([
    store.console.findTaskByExternalId(workspaceId, externalId),
    store.identities.operationsOf(workspaceId, externalId, HISTORY_LIMIT),
    store.releases.listHistory(workspaceId, HISTORY_LIMIT, externalId),
  ]);
  const actors = await store.console.actors([
    ...operations.map((o) => o.actorId),
    ...releaseRows.map((r) => r.actorId),
  ]);
  const releases: IdentityRelease[] = releaseRows.map((r) => ({
    id: r.id,
    at: r.createdAt,
    actor: actors.get(r.actorId) ?? unknownActor(r.actorId),
    source: r.source,
    reason: r.reason,
    result: r.resultStatus === 204 ? 'released' : 'nothing_held_it',
    holder_task_id: r.holderTaskId,
    holder_identifier: r.holderIdentifier,
    idempotency_key: r.idempotencyKey,
    request_id: r.requestId,
  }));
  const released = releases.filter((r) => r.result === 'released');
  const taskIds = [
    ...new Set([
      ...operations.map((o) => o.taskId),
      ...released.flatMap((r) => (r.holder_task_id ? [r.holder_task_id] : [])),
      ...(current ? [current.id] : []),
    ]),
  ];
  const tasks = new Map((await store.identities.tasksByIds(taskIds)).map((t) => [t.id, t]));
  const revisions = await store.identities.lastRevisions(taskIds.filter((id) => !tasks.has(id)));
  const lastRevision = new Map(revisions.map((r) => [r.taskId, r]));

  const holders: PastHolder[] = taskIds.map((id) => {
    const task = tasks.get(id);
    const op = operations.find((o) => o.taskId === id);
    const release = released.find((r) => r.holder_task_id === id);
    const rev = lastRevision.get(id);
    const end = ((): { ended: HoldEnd; until: string | null } => {
      if (current?.id === id) return { ended: 'holds', until: null };
      if (release) return { ended: 'released', until: release.at };
      if (op?.state === 'aborted') return { ended: 'aborted', until: op.finishedAt };
      if (!task) return { ended: 'deleted', until: rev?.change === 'delete' ? rev.createdAt : null };
      return { ended: 'unknown', until: null };
    })();
    return {
      task_id: id,
      identifier: task?.identifier ?? rev?.identifier ?? null,
      title: task?.title ?? rev?.title ?? null,
      exists: task !== undefined,
      since: op?.createdAt ?? task?.createdAt ?? rev?.createdAt ?? '',
      ...end,
      created_by: op ? (actors.get(op.actorId) ?? unknownActor(op.actorId)) : null,
      operation_id: op?.id ?? null,
    };
  });
  holders.sort((a, b) => a.since.localeCompare(b.since));
  const ends = holders.flatMap((h) => (h.until ? [h.until] : [])).sort();
  return {
    holder: current ? consoleTask(current) : null,
    holders,
    /** Newest first. */
    releases,
    /** The newest release that freed it. */
    last_release: released[0] ?? null,
    /** When nothing holds it: since when (the end of the last hold); null while held or if never held. */
    free_since: current ? null : (ends.at(-1) ?? null),
  };
}

/** The workspace a page about an identity looked in (SPEC §13: it always says which). */
export async function workspaceSummary(store: Pick<Repositories, 'workspaces'>, workspaceId: string) {
  const w = (await store.workspaces.listSummaries()).find((s) => s.id === workspaceId);
  if (!w) throw new DomainError('not_found');
  return w;
}

/** At most this many other workspaces are asked (each is one indexed read). */
const ELSEWHERE_WORKSPACES = 200;

/**
 * SPEC §13: a link without its workspace, or an id looked up in the wrong one, should not end at "nothing holds it":
 * the tasks holding the same id in the actor's other workspaces (each one indexed read of uniq_tasks_external_id).
 */
export async function heldElsewhere(
  store: Pick<Repositories, 'workspaces' | 'identities'>,
  actor: Actor,
  workspaceId: string,
  externalId: string,
) {
  const visible = visibleWorkspaces(actor);
  const summaries = await store.workspaces.listSummaries();
  const others = summaries
    .filter((w) => w.id !== workspaceId && (visible === 'all' || visible.includes(w.id)))
    .slice(0, ELSEWHERE_WORKSPACES);
  const holders = await store.identities.holdersIn(
    others.map((w) => w.id),
    externalId,
  );
  return holders.flatMap((h) => {
    const w = others.find((o) => o.id === h.workspaceId);
    return w ? [{ workspace: w, task_id: h.id, identifier: h.identifier }] : [];
  });
}

/** The identity history page: SPEC §2.1 normalization, then the history, with the holder's operation state. */
export async function readIdentityHistory(
  services: Pick<Services, 'store' | 'readiness'>,
  actor: Actor,
  workspaceId: string,
  raw: string,
) {
  requireRead(actor, workspaceId);
  let externalId = requireExternalId(raw);
  services.readiness.requireIdentity();
  let history = await historyOf(services.store, workspaceId, externalId);
  // As Find: the id typed with escapes (`rtl:⟦U+202E⟧evil` as shown, `<U+202E>`, `\u202E`; SPEC §13) means the real one, unless the
  // typed text has a history of its own.
  const decoded = readTypedEscapes(externalId);
  if (decoded !== undefined && history.holders.length === 0 && history.releases.length === 0) {
    [externalId, history] = [decoded, await historyOf(services.store, workspaceId, decoded)];
  }
  const [operation, workspace, elsewhere] = await Promise.all([
    history.holder ? services.store.console.latestOperationOfTask(history.holder.id) : undefined,
    workspaceSummary(services.store, workspaceId),
    heldElsewhere(services.store, actor, workspaceId, externalId),
  ]);
  const [holder] = history.holder ? await withLookalikes(services.store, workspaceId, [history.holder]) : [];
  return {
    external_id: externalId,
    workspace,
    elsewhere,
    ...history,
    holder: holder ? { ...holder, operation_state: operation?.state ?? null } : null,
  };
}
