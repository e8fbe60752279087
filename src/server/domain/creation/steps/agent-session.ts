// SPEC §5 `session_prepare` + `launch_intent` (start_policy = immediate): a prepared agent session row and a
// pending launch intent. Nothing launches here: the dispatcher launches only after Complete (SPEC §4.1 step 10).
import { numOrNull, strOrNull } from '../../../db/values';
import { stableId } from '../stable-id';
import type { StepContext, StepKindImpl } from './types';

export function sessionIdFor(operationId: string, sessionStep: number): string {
  return stableId(operationId, sessionStep, 'session');
}

function rowExists(ctx: StepContext, table: 'agent_sessions' | 'launch_intents', id: string): Promise<boolean> {
  return ctx.services.db.one(`SELECT id FROM ${table} WHERE id = $1`, [id]).then((r) => r !== undefined);
}

export const sessionPrepare: StepKindImpl = {
  async execute(ctx) {
    const id = sessionIdFor(ctx.handle.operationId, ctx.index);
    const at = new Date().toISOString();
    await ctx.tx((tx) =>
      tx.run(
        `INSERT INTO agent_sessions (id, workspace_id, task_id, profile_id, operation_id, step_index, state, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'prepared', $7, $7) ON CONFLICT DO NOTHING`,
        [id, ctx.handle.workspaceId, ctx.handle.taskId, strOrNull(ctx.params.profile_id), ctx.handle.operationId, ctx.index, at],
      ),
    );
    return { session_id: id };
  },
  async verify(ctx) {
    const id = sessionIdFor(ctx.handle.operationId, ctx.index);
    return (await rowExists(ctx, 'agent_sessions', id)) ? { session_id: id } : null;
  },
  async compensate(ctx) {
    await ctx.tx((tx) => tx.run('DELETE FROM agent_sessions WHERE id = $1', [sessionIdFor(ctx.handle.operationId, ctx.index)]));
  },
};

export const launchIntent: StepKindImpl = {
  async execute(ctx) {
    const id = stableId(ctx.handle.operationId, ctx.index, 'launch');
    const sessionId = sessionIdFor(ctx.handle.operationId, numOrNull(ctx.params.session_step) ?? ctx.index - 1);
    const at = new Date().toISOString();
    await ctx.tx((tx) =>
      tx.run(
        `INSERT INTO launch_intents (id, workspace_id, task_id, session_id, profile_id, operation_id, step_index, kind, state,
           blocked_by, attempts, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'immediate', 'pending', '[]', 0, $8, $8) ON CONFLICT DO NOTHING`,
        [id, ctx.handle.workspaceId, ctx.handle.taskId, sessionId, strOrNull(ctx.params.profile_id), ctx.handle.operationId, ctx.index, at],
      ),
    );
    return { intent_id: id, session_id: sessionId };
  },
  async verify(ctx) {
    const id = stableId(ctx.handle.operationId, ctx.index, 'launch');
    return (await rowExists(ctx, 'launch_intents', id)) ? { intent_id: id } : null;
  },
  async compensate(ctx) {
    await ctx.tx((tx) => tx.run('DELETE FROM launch_intents WHERE id = $1', [stableId(ctx.handle.operationId, ctx.index, 'launch')]));
  },
};
