// Every row a create wrote — task, operation, steps, revisions, events, launch intents — with what differs between
// two creates of the same request (their ids, numbers, identifier, identity and clock readings) replaced by stable
// placeholders, so two ways of storing a create can be compared byte for byte (SPEC §4.3: "the stored rows are
// exactly those of the two-phase path (tests compare them)").
import { TASK_COLUMNS } from '../../../src/server/db/repositories/tasks';
import type { Db } from '../../../src/server/db/types';
import { EVENTS } from '../../support/events';

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
    events: await db.query(
      `SELECT id, workspace_id, revision, type, task, created_at FROM ${EVENTS} WHERE task_id = $1 ORDER BY seq`,
      [taskId],
    ),
    intents: await db.query(
      // Not its state: the dispatcher may already be launching an immediate start.
      `SELECT id, workspace_id, session_id, profile_id, operation_id, step_index, kind, blocked_by, created_at
       FROM launch_intents WHERE task_id = $1 ORDER BY step_index`,
      [taskId],
    ),
  };
  const ids = new Map<string, string>();
  let text = JSON.stringify(rows).replaceAll(String(task.identifier), '<identifier>');
  if (task.external_id !== null) text = text.replaceAll(String(task.external_id), '<external-id>');
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
      if (!ids.has(id)) ids.set(id, `<id${ids.size}>`);
      return ids.get(id)!;
    });
}

/**
 * The two-phase path's footprint as a zero-step create's compact operation (SPEC §9) stores it: no token, and no plan
 * when the plan is the empty one (no step, no start, no blocker, no agent profile).
 */
export function asCompactOperation(footprint: string): string {
  return footprint
    .replace(/"plan":("(?:[^"\\]|\\.)*")/, (whole, text: string) => {
      const plan = JSON.parse(JSON.parse(text) as string) as {
        steps: unknown[];
        startPolicy: string;
        blockedBy: unknown[];
        agentProfileId?: string | null;
      };
      const empty =
        plan.steps.length === 0 && plan.startPolicy === 'none' && plan.blockedBy.length === 0 && !plan.agentProfileId;
      return empty ? '"plan":null' : whole;
    })
    .replace(/"token_hash":\d+/, '"token_hash":null');
}
