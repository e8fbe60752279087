// Every row a create wrote — task, operation, steps, revisions, events, launch intents — with what differs between
// two creates of the same request (their ids, numbers, identifier, identity and clock readings) replaced by stable
// placeholders, so two ways of storing a create can be compared byte for byte (SPEC §4.3: "the stored rows are
// exactly those of the two-phase path (tests compare them)", as SPEC §9 lets a zero-step create store them more
// compactly: asCompactStorage), and what every reader makes of them (readersView), which must be the same.
import { readEventId } from '../../../src/server/db/repositories/events';
import { TASK_COLUMNS } from '../../../src/server/db/repositories/tasks';
import type { Db } from '../../../src/server/db/types';
import type { Services } from '../../../src/server/services';
import { EVENTS, taskEvents } from '../../support/events';

export async function footprint(db: Db, taskId: string): Promise<string> {
  const task = await db.one<Record<string, unknown>>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = $1`, [taskId]);
  if (!task) throw new Error(`no task ${taskId}`);
  const op = await db.one<Record<string, unknown>>(
    `SELECT id, workspace_id, actor_id, state, plan, external_id, identity_released, generation, lease_owner, lease_expires_at, outcome,
       event_id, error, token_hash, created_at, updated_at, finished_at
     FROM creation_operations WHERE task_id = $1`,
    [taskId],
  );
  const rows = {
    task: { ...task, number: 0 },
    op: { ...op, token_hash: typeof op?.token_hash === 'string' ? op.token_hash.length : null },
    steps: await db.query(
      'SELECT step_index, kind, params, state, attempts, evidence, error FROM creation_steps WHERE operation_id = $1 ORDER BY step_index',
      [op?.id],
    ),
    revisions: await db.query(
      'SELECT revision, workspace_id, change, actor_id, snapshot, created_at FROM task_revisions WHERE task_id = $1 ORDER BY revision',
      [taskId],
    ),
    // As stored (`id`: NULL where it is the one derived from the row), and the id every reader gives it.
    events: (
      await db.query<{ id: unknown; revision: unknown }>(
        `SELECT id, workspace_id, revision, type, task, created_at FROM ${EVENTS} WHERE task_id = $1 ORDER BY seq`,
        [taskId],
      )
    ).map((e) => ({ ...e, read_id: readEventId(e.id, taskId, e.revision) })),
    intents: await db.query(
      // Not its state: the dispatcher may already be launching an immediate start.
      `SELECT id, workspace_id, session_id, profile_id, operation_id, step_index, kind, blocked_by, created_at
       FROM launch_intents WHERE task_id = $1 ORDER BY step_index`,
      [taskId],
    ),
  };
  return stable(rows, String(task.identifier), task.external_id === null ? null : String(task.external_id));
}

/** `value` as JSON text with the task's identifier and identity, clock readings and ids replaced by placeholders. */
function stable(value: unknown, identifier: string, externalId: string | null): string {
  const ids = new Map<string, string>();
  let text = JSON.stringify(value).replaceAll(identifier, '<identifier>');
  if (externalId !== null) text = text.replaceAll(externalId, '<external-id>');
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
      return ids.get(id)!;
    });
}

/**
 * What every reader of a task's creation operation and revisions answers, in the footprint's placeholders: the
 * operation as Complete and recovery read it, as the console shows it (detail, the task's, the tasks list's) and as
 * the identity history lists it; the history API (REST, tRPC), the console's task detail (a whole page, and pages
 * that end at revision 1 and at revision 0), the identity history's newest revision, the parent-workspace lookup
 * (SPEC §4.1 step 2), and the events as the relay delivers them (but for their seq).
 */
export async function readersView(services: Services, db: Db, taskId: string): Promise<string> {
  const task = await db.one<{ identifier: unknown; external_id: unknown }>(
    'SELECT identifier, external_id FROM tasks WHERE id = $1',
    [taskId],
  );
  if (!task) throw new Error(`no task ${taskId}`);
  const { events, console, identities, creation } = services.store;
  const op = await db.one<{ id: string; workspace_id: string; external_id: string | null }>(
    'SELECT id, workspace_id, external_id FROM creation_operations WHERE task_id = $1',
    [taskId],
  );
  if (!op) throw new Error(`no operation of ${taskId}`);
  const view = {
    // But for its token (SPEC §9: a compact record has none, as no handle is ever made from it).
    operation: { ...(await creation.findOperation(op.id)), tokenHash: undefined },
    consoleOperation: await console.operation(op.id),
    consoleOperationOfTask: await console.latestOperationOfTask(taskId),
    consoleOperationsByTask: [...(await console.operationsByTask(op.workspace_id, [taskId])).values()],
    identityOperations:
      op.external_id === null
        ? []
        : (await identities.operationsOf(op.workspace_id, op.external_id, 100)).filter((o) => o.id === op.id),
    history: await events.listRevisions(taskId),
    console: await console.revisionsOfTask(taskId, 200),
    consoleNewest: await console.revisionsOfTask(taskId, 1),
    consoleTwo: await console.revisionsOfTask(taskId, 2),
    identityHistory: await identities.lastRevisions([taskId]),
    parentWorkspace: await events.workspaceOfTask(taskId),
    // Not their positions in the log, which differ between any two creates.
    events: (await taskEvents(db, taskId)).map(({ seq: _seq, ...event }) => event),
  };
  return stable(view, String(task.identifier), task.external_id === null ? null : String(task.external_id));
}

/**
 * The two-phase path's footprint as a zero-step create stores it (SPEC §9): no revision 0 (readers rebuild it from
 * revision 1), and its operation a compact record — no token, no outcome or event id (its revision 1 holds the event),
 * and no plan when the plan is the empty one (no step, no start, no blocker, no agent profile); its revision 1 written
 * at the task's creation, so its stored snapshot leaves `created_at` to the row (db/repositories/snapshots.ts) where
 * the two-phase path's, written at settle time, names it. JSON text in, the same layout out (JSON.stringify keeps the
 * key order).
 */
export function asCompactStorage(footprint: string): string {
  const rows = JSON.parse(footprint) as {
    op: { plan: string | null; token_hash: number | null; outcome: string | null; event_id: string | null };
    revisions: Array<{ revision: unknown; snapshot: string }>;
    events: Array<{ task: string }>;
  };
  if (rows.op.plan !== null) {
    const plan = JSON.parse(rows.op.plan) as {
      steps: unknown[];
      startPolicy: string;
      blockedBy: unknown[];
      agentProfileId?: string | null;
    };
    const empty =
      plan.steps.length === 0 && plan.startPolicy === 'none' && plan.blockedBy.length === 0 && !plan.agentProfileId;
    if (empty) rows.op.plan = null;
  }
  rows.op.token_hash = null;
  // Its outcome and event id are its task's revision 1's: compactOutcome.
  rows.op.outcome = null;
  rows.op.event_id = null;
  rows.revisions = rows.revisions.filter((r) => Number(r.revision) !== 0);
  for (const r of rows.revisions) r.snapshot = createdAtFromRow(r.snapshot);
  for (const e of rows.events) e.task = createdAtFromRow(e.task);
  return JSON.stringify(rows);
}

/** A stored snapshot (the array form) without its `created_at` (element 6), trailing defaults left off again. */
function createdAtFromRow(stored: string): string {
  const fields = JSON.parse(stored) as unknown;
  if (!Array.isArray(fields) || fields.length < 7) return stored;
  fields[6] = null;
  while (fields.length > 0 && fields.at(-1) === null) fields.pop();
  return JSON.stringify(fields);
}
