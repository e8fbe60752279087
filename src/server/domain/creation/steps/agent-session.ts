// SPEC §5 `session_prepare` + `launch_intent` (start_policy = immediate): a prepared agent session row and a
// pending launch intent. Nothing launches here: the dispatcher launches only after Complete (SPEC §4.1 step 10).
import { numOrNull, strOrNull } from '../../../db/values';
import { stableId } from '../stable-id';
import type { StepKindImpl } from './types';

export function sessionIdFor(operationId: string, sessionStep: number): string {
  return stableId(operationId, sessionStep, 'session');
}

export const sessionPrepare: StepKindImpl = {
  async execute(ctx) {
    const id = sessionIdFor(ctx.handle.operationId, ctx.index);
    const { operationId, taskId, workspaceId } = ctx.handle;
    const at = new Date().toISOString();
    await ctx.tx((tx) =>
      tx.launches.prepareSession({
        id,
        workspaceId,
        taskId,
        profileId: strOrNull(ctx.params.profile_id),
        operationId,
        stepIndex: ctx.index,
        at,
      }),
    );
    return { session_id: id };
  },
  async verify(ctx) {
    const id = sessionIdFor(ctx.handle.operationId, ctx.index);
    return (await ctx.services.store.launches.sessionExists(id)) ? { session_id: id } : null;
  },
  async compensate(ctx) {
    await ctx.tx((tx) => tx.launches.deleteSession(sessionIdFor(ctx.handle.operationId, ctx.index)));
  },
};

export const launchIntent: StepKindImpl = {
  async execute(ctx) {
    const id = stableId(ctx.handle.operationId, ctx.index, 'launch');
    const sessionId = sessionIdFor(ctx.handle.operationId, numOrNull(ctx.params.session_step) ?? ctx.index - 1);
    const { operationId, taskId, workspaceId } = ctx.handle;
    const at = new Date().toISOString();
    await ctx.tx((tx) =>
      tx.launches.insertImmediateIntent({
        id,
        workspaceId,
        taskId,
        sessionId,
        profileId: strOrNull(ctx.params.profile_id),
        operationId,
        stepIndex: ctx.index,
        at,
      }),
    );
    return { intent_id: id, session_id: sessionId };
  },
  async verify(ctx) {
    const id = stableId(ctx.handle.operationId, ctx.index, 'launch');
    return (await ctx.services.store.launches.intentExists(id)) ? { intent_id: id } : null;
  },
  async compensate(ctx) {
    await ctx.tx((tx) => tx.launches.deleteIntent(stableId(ctx.handle.operationId, ctx.index, 'launch')));
  },
};
