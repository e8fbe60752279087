// Console task reads (SPEC §13): the sortable, paginated table; exact find-by-external-id; task detail.
import { can, type Actor } from '../access';
import type { Repositories } from '../../db/store';
import type { Services } from '../../services';
import { DomainError, isDomainError } from '../errors/domain-error';
import { readTypedEscapes } from '../../../lib/visible-id';
import { normalizeExternalId } from '../identity/normalize';
import { getTaskOrThrow } from '../tasks/get-task';
import { heldElsewhere, historyOf, workspaceSummary } from './identity-history';
import { withLookalikes } from './lookalikes';
import { consoleTask, requireRead } from './rows';

/**
 * Exact find (SPEC §7 lookup semantics, §2.1 normalization): the normalized value is shown back so the operator sees
 * what was searched for. Nothing holding it is an answer (`task: null`), not an error. It is an identity read: until
 * attestation passes it answers 503 with the reason, like every other (SPEC §12: a console find is no way around the
 * gate). The id typed with escapes — as the console shows it (`rtl:⟦U+202E⟧evil`), or `<U+202E>`, `\u202E` (SPEC §13) —
 * finds the real one when nothing holds the typed text itself; the answer says when the id was last released and by
 * whom, or since when it is free.
 */
export async function findByExternalId(
  services: Pick<Services, 'store' | 'readiness'>,
  actor: Actor,
  workspaceId: string,
  raw: string,
) {
  const { store } = services;
  requireRead(actor, workspaceId);
  // The workspace looked in (SPEC §13: a page about an identity says which).
  const workspace = await workspaceSummary(store, workspaceId);
  let normalized: string | undefined;
  try {
    normalized = normalizeExternalId(raw);
  } catch (err) {
    if (isDomainError(err)) return { ...NOTHING, workspace, error: err.message };
    throw err;
  }
  if (normalized === undefined) return { ...NOTHING, workspace, error: 'invalid external_id: external_id is required' };
  services.readiness.requireIdentity();
  const decoded = readTypedEscapes(normalized);
  let searched = normalized;
  let history = await historyOf(store, workspaceId, normalized);
  if (!history.holder && decoded !== undefined) {
    const other = await historyOf(store, workspaceId, decoded);
    // Neither holds it: the operator typed what the console shows, so the shown id's story is the one to tell.
    if (other.holder || history.holders.length === 0) [searched, history] = [decoded, other];
  }
  const task = history.holder ? (await withLookalikes(store, workspaceId, [history.holder]))[0]! : null;
  const [operation, elsewhere] = await Promise.all([
    task ? store.console.latestOperationOfTask(task.id) : undefined,
    // SPEC §13: nothing holds it here — say where it is held among the workspaces this person may see.
    task ? [] : heldElsewhere(store, actor, workspaceId, searched),
  ]);
  return {
    workspace,
    elsewhere,
    normalized: searched,
    /** The typed text was read with its escapes (`⟦U+200B⟧`, `<U+200B>`, `\u200B`) to find `normalized`. */
    visible_form: searched !== normalized,
    error: null,
    task: task ? { ...task, operation_state: operation?.state ?? null } : null,
    last_release: history.last_release,
    free_since: history.free_since,
    held_before: history.holders.some((h) => h.ended !== 'holds'),
  };
}

const NOTHING = {
  elsewhere: [],
  normalized: null,
  visible_form: false,
  task: null,
  last_release: null,
  free_since: null,
  held_before: false,
} as const;

/** A task with its identity panel, creation operation, revisions and events (SPEC §13 task detail). */
export async function readTaskDetail(
  store: Pick<Repositories, 'tasks' | 'console' | 'identities'>,
  actor: Actor,
  taskId: string,
) {
  const task = await getTaskOrThrow(store, actor, taskId);
  const [row, operation, revisions, events] = await Promise.all([
    store.console.findTask(task.id),
    store.console.latestOperationOfTask(task.id),
    store.console.revisionsOfTask(task.id, 200),
    store.console.eventsOfTask(task.id, 200),
  ]);
  if (!row) throw new DomainError('task_not_found');
  const [withHint] = await withLookalikes(store, task.workspaceId, [consoleTask(row)]);
  return {
    task: { ...withHint!, description: task.description, parent_id: task.parentId },
    operation: operation ?? null,
    can_release: can(actor, task.workspaceId, 'release'),
    revisions,
    events,
  };
}
