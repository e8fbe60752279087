// console.* — the operator console's reads (SPEC §13). Thin: parse, call the read model, return its rows.
// Releases are not here: the console calls task.releaseExternalId like every other client.
import { z } from 'zod';
import { readOverview } from '../../domain/console/overview';
import { OPERATION_STATES, readOperation, readOperations, readUnsettled } from '../../domain/console/operations';
import { readEvents, readReleases } from '../../domain/console/releases';
import { browseTasks } from '../../domain/console/browse';
import { readIdentityHistory } from '../../domain/console/identity-history';
import { BROWSE_SORTS, SETTLEMENT_FILTERS } from '../../domain/console/rows';
import { findByExternalId, readTaskDetail } from '../../domain/console/tasks';
import { protectedProcedure, router } from '../trpc';

const ZId = z.string().min(1).max(200);
const ZWorkspace = z.object({ workspace_id: ZId });
const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)');

export const consoleRouter = router({
  overview: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readOverview(ctx.services.store, ctx.actor, input.workspace_id)),

  /**
   * The task browser (issue 15): external-id prefix, filters, sort and keyset pages; the console keeps every one of
   * these in its URL. `created_from`/`created_to` are UTC days, both inclusive.
   */
  tasks: protectedProcedure
    .input(
      ZWorkspace.extend({
        prefix: z.string().max(4096).nullish(),
        settlement: z.enum(SETTLEMENT_FILTERS).default('any'),
        archived: z.enum(['include', 'exclude', 'only']).default('include'),
        step_id: ZId.nullish(),
        created_from: ZDay.nullish(),
        created_to: ZDay.nullish(),
        sort: z.enum(BROWSE_SORTS).default('identifier'),
        dir: z.enum(['asc', 'desc']).default('desc'),
        cursor: z.string().max(2048).nullish(),
        direction: z.enum(['after', 'before']).default('after'),
        limit: z.number().int().min(1).max(100).default(25),
      }),
    )
    .query(({ ctx, input }) =>
      browseTasks(ctx.services.store, ctx.actor, {
        workspaceId: input.workspace_id,
        prefix: input.prefix ?? null,
        settlement: input.settlement,
        archived: input.archived,
        stepId: input.step_id ?? null,
        createdFrom: input.created_from ?? null,
        createdTo: input.created_to ?? null,
        sort: input.sort,
        dir: input.dir,
        cursor: input.cursor ?? null,
        direction: input.direction,
        limit: input.limit,
      }),
    ),

  /** Exact, after SPEC §2.1 normalization; `task: null` means nothing holds the identity. */
  findByExternalId: protectedProcedure
    .input(ZWorkspace.extend({ external_id: z.string().max(4096) }))
    .query(({ ctx, input }) => findByExternalId(ctx.services, ctx.actor, input.workspace_id, input.external_id)),

  /** Every task that held the external id, every release of it, and who holds it now (issue 15). */
  identityHistory: protectedProcedure
    .input(ZWorkspace.extend({ external_id: z.string().max(4096) }))
    .query(({ ctx, input }) => readIdentityHistory(ctx.services, ctx.actor, input.workspace_id, input.external_id)),

  task: protectedProcedure.input(z.object({ id: ZId })).query(({ ctx, input }) => readTaskDetail(ctx.services.store, ctx.actor, input.id)),

  unsettled: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readUnsettled(ctx.services.store, ctx.actor, input.workspace_id)),

  operations: protectedProcedure
    .input(ZWorkspace.extend({ state: z.enum([...OPERATION_STATES, 'open']).nullish() }))
    .query(({ ctx, input }) => readOperations(ctx.services.store, ctx.actor, input.workspace_id, input.state ?? null)),

  operation: protectedProcedure.input(z.object({ id: ZId })).query(({ ctx, input }) => readOperation(ctx.services.store, ctx.actor, input.id)),

  /** SPEC §13: polled about once a second; when its signature moves, the console refetches what it shows. */
  pulse: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => ctx.services.pulse.read(ctx.actor, input.workspace_id)),

  releases: protectedProcedure.input(ZWorkspace).query(({ ctx, input }) => readReleases(ctx.services.store, ctx.actor, input.workspace_id)),

  events: protectedProcedure
    .input(ZWorkspace.extend({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => readEvents(ctx.services.store, ctx.actor, input.workspace_id, input.limit)),
});
