// cleanup.* — the console's view of SPEC §4.4 "handed to cleanup": compensations the runtime is still retrying in a
// workspace, the ones that keep failing flagged. Readers of the workspace may see them (like the operations list).
import { z } from 'zod';
import { readCleanup } from '../../domain/console/operations';
import { protectedProcedure, router } from '../trpc';

export const cleanupRouter = router({
  list: protectedProcedure
    .input(z.object({ workspace_id: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => readCleanup(ctx.services.store, ctx.actor, input.workspace_id)),
});
