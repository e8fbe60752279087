// console.* — the operator console's reads (SPEC §13). Thin: parse, call the read model, return its rows.
// Releases are not here: the console calls task.releaseExternalId like every other client.
import { z } from 'zod';
import { readOverview } from '../../domain/console/overview';
import { OPERATION_STATES, readOperation, readOperations, readUnsettled } from '../../domain/console/operations';
import { readEvents, readReleases } from '../../domain/console/releases';
import { findByExternalId, readTaskDetail, readTaskTable, TASK_SORTS } from '../../domain/console/tasks';
import { protectedProcedure, router } from '../trpc';

const ZId = z.string().min(1).max(200);
const ZWorkspace = z.object({ workspace_id: ZId });

export const consoleRouter = router({
  overview: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readOverview(ctx.services.store, ctx.actor, input.workspace_id)),

  tasks: protectedProcedure
    .input(
      ZWorkspace.extend({
        sort: z.enum(TASK_SORTS).default('identifier'),
        dir: z.enum(['asc', 'desc']).default('desc'),
        offset: z.number().int().min(0).max(1_000_000).default(0),
        limit: z.number().int().min(1).max(100).default(25),
        archived: z.enum(['include', 'exclude', 'only']).default('include'),
      }),
    )
    .query(({ ctx, input }) => readTaskTable(ctx.services.store, ctx.actor, { workspaceId: input.workspace_id, ...input })),

  /** Exact, after SPEC §2.1 normalization; `task: null` means nothing holds the identity. */
  findByExternalId: protectedProcedure
    .input(ZWorkspace.extend({ external_id: z.string().max(4096) }))
    .query(({ ctx, input }) => findByExternalId(ctx.services, ctx.actor, input.workspace_id, input.external_id)),

  task: protectedProcedure.input(z.object({ id: ZId })).query(({ ctx, input }) => readTaskDetail(ctx.services.store, ctx.actor, input.id)),

  unsettled: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readUnsettled(ctx.services.store, ctx.actor, input.workspace_id)),

  operations: protectedProcedure
    .input(ZWorkspace.extend({ state: z.enum([...OPERATION_STATES, 'open']).nullish() }))
    .query(({ ctx, input }) => readOperations(ctx.services.store, ctx.actor, input.workspace_id, input.state ?? null)),

  operation: protectedProcedure.input(z.object({ id: ZId })).query(({ ctx, input }) => readOperation(ctx.services.store, ctx.actor, input.id)),

  releases: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readReleases(ctx.services.store, ctx.actor, input.workspace_id)),

  events: protectedProcedure
    .input(ZWorkspace.extend({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => readEvents(ctx.services.store, ctx.actor, input.workspace_id, input.limit)),
});
