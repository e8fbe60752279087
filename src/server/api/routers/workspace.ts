// workspace.* reads the console needs.
import { z } from 'zod';
import { listVisibleWorkspaces } from '../../domain/tasks/get-task';
import { can } from '../../domain/access';
import { DomainError } from '../../domain/errors/domain-error';
import { createWorkspaceAs } from '../../domain/workspaces/create-workspace';
import { deleteWorkspace } from '../../domain/workspaces/delete-workspace';
import { listSteps } from '../../domain/workspaces/steps';
import { storedText } from '../../domain/text';
import { protectedProcedure, router } from '../trpc';

export const workspaceRouter = router({
  /** An instance admin creates a workspace from the console (first run: there is none yet, and no CLI at hand). */
  create: protectedProcedure
    .input(z.object({ name: storedText(200).min(1), prefix: storedText(10).min(1) }))
    .mutation(async ({ ctx, input }) => {
      const w = await createWorkspaceAs(ctx.services.store, ctx.actor, { name: input.name, prefix: input.prefix });
      return { id: w.id, name: w.name, prefix: w.prefix };
    }),

  /** SPEC §8: admin only; deletes its tasks (events in order), aborts in-flight creations, keeps history. */
  delete: protectedProcedure
    .input(z.object({ workspace_id: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => deleteWorkspace(ctx.services, ctx.actor, input.workspace_id)),

  list: protectedProcedure.query(async ({ ctx }) => listVisibleWorkspaces(ctx.services, ctx.actor)),

  steps: protectedProcedure
    .input(z.object({ workspace_id: z.string().min(1).max(200) }))
    .query(async ({ ctx, input }) => {
      if (!can(ctx.actor, input.workspace_id, 'read')) throw new DomainError('not_found');
      const steps = await listSteps(ctx.services.store, input.workspace_id);
      return steps.map((s) => ({
        id: s.id,
        name: s.name,
        position: s.position,
        wip_limit: s.wipLimit,
        is_done: s.isDone,
      }));
    }),
});
