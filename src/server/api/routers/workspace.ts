// workspace.* reads the console needs.
import { z } from 'zod';
import { listVisibleWorkspaces } from '../../domain/tasks/get-task';
import { can } from '../../auth/actor';
import { DomainError } from '../../domain/errors/domain-error';
import { deleteWorkspace } from '../../domain/workspaces/delete-workspace';
import { protectedProcedure, router } from '../trpc';

export const workspaceRouter = router({
  /** SPEC §8: admin only; deletes its tasks (events in order), aborts in-flight creations, keeps history. */
  delete: protectedProcedure
    .input(z.object({ workspace_id: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => deleteWorkspace(ctx.services, ctx.actor, input.workspace_id)),

  list: protectedProcedure.query(async ({ ctx }) => listVisibleWorkspaces(ctx.services, ctx.actor)),

  steps: protectedProcedure.input(z.object({ workspace_id: z.string().min(1).max(200) })).query(async ({ ctx, input }) => {
    if (!can(ctx.actor, input.workspace_id, 'read')) throw new DomainError('not_found');
    const rows = await ctx.services.db.query<Record<string, unknown>>(
      'SELECT id, name, position, wip_limit, is_done FROM workflow_steps WHERE workspace_id = $1 ORDER BY position',
      [input.workspace_id],
    );
    return rows.map((r) => ({
      id: String(r.id),
      name: String(r.name),
      position: Number(r.position),
      wip_limit: r.wip_limit === null ? null : Number(r.wip_limit),
      is_done: r.is_done === true || r.is_done === 1,
    }));
  }),
});
