// console.* — the operator console's reads (SPEC §13). Thin: parse, call the read model, return its rows.
// Releases are not here: the console calls task.releaseExternalId like every other client. The list inputs are shared
// with the export route (domain/console/list-inputs.ts), so an export is the list on screen with its filters.
import { z } from 'zod';
import { readNamespaces, readOverview } from '../../domain/console/overview';
import { readOperation, readUnsettled } from '../../domain/console/operations';
import { readEvents } from '../../domain/console/events';
import { browseInput, browseTasks } from '../../domain/console/browse';
import { readIdentityHistory } from '../../domain/console/identity-history';
import {
  ZId,
  ZIdentityInput,
  ZOperationsInput,
  ZReleasesInput,
  ZTasksInput,
  ZWorkspace,
} from '../../domain/console/list-inputs';
import { listOperations, listReleases } from '../../domain/console/lists';
import { findByExternalId, readTaskDetail } from '../../domain/console/tasks';
import { protectedProcedure, router } from '../trpc';

/**
 * Test hook (inert unless the server runs with failpoints, src/server/failpoints.ts): `console_read` fails or pauses
 * every console read, matched by procedure path — how the browser tests make the console's API answer errors.
 */
const consoleProcedure = protectedProcedure.use(async function consoleReadFailpoint({ ctx, path, next }) {
  await ctx.services.failpoints.hit('console_read', path);
  return next();
});

export const consoleRouter = router({
  overview: consoleProcedure
    .input(ZWorkspace)
    .query(({ ctx, input }) => readOverview(ctx.services.store, ctx.actor, input.workspace_id)),

  /** Counts per id namespace (the part before the first `:`): which integration makes unsettled or released work. */
  namespaces: consoleProcedure
    .input(ZWorkspace)
    .query(({ ctx, input }) => readNamespaces(ctx.services.store, ctx.actor, input.workspace_id)),

  /** The task browser: external-id prefix, filters, sort and keyset pages; the console keeps each in its URL. */
  tasks: consoleProcedure
    .input(ZTasksInput)
    .query(({ ctx, input }) => browseTasks(ctx.services.store, ctx.actor, browseInput(input))),

  /** Exact, after SPEC §2.1 normalization; `task: null` means nothing holds the identity. */
  findByExternalId: consoleProcedure
    .input(ZIdentityInput)
    .query(({ ctx, input }) => findByExternalId(ctx.services, ctx.actor, input.workspace_id, input.external_id)),

  /** Every task that held the external id, every release of it, and who holds it now. */
  identityHistory: consoleProcedure
    .input(ZIdentityInput)
    .query(({ ctx, input }) => readIdentityHistory(ctx.services, ctx.actor, input.workspace_id, input.external_id)),

  task: consoleProcedure
    .input(z.object({ id: ZId }))
    .query(({ ctx, input }) => readTaskDetail(ctx.services.store, ctx.actor, input.id)),

  unsettled: consoleProcedure
    .input(ZWorkspace)
    .query(({ ctx, input }) => readUnsettled(ctx.services.store, ctx.actor, input.workspace_id)),

  /** Creation operations, newest first, in pages with a total: state, external-id prefix, time range, search. */
  operations: consoleProcedure
    .input(ZOperationsInput)
    .query(({ ctx, input }) => listOperations(ctx.services.store, ctx.actor, input)),

  operation: consoleProcedure
    .input(z.object({ id: ZId }))
    .query(({ ctx, input }) => readOperation(ctx.services.store, ctx.actor, input.id)),

  /** SPEC §13: polled about once a second; when its signature moves, the console refetches what it shows. */
  pulse: consoleProcedure
    .input(ZWorkspace)
    .query(({ ctx, input }) => ctx.services.pulse.read(ctx.actor, input.workspace_id)),

  /** Releases, newest first, in pages with a total: result, who, reason, external-id prefix, time range, search. */
  releases: consoleProcedure
    .input(ZReleasesInput)
    .query(({ ctx, input }) => listReleases(ctx.services.store, ctx.actor, input)),

  events: consoleProcedure
    .input(ZWorkspace.extend({ limit: z.number().int().min(1).max(200).default(50) }))
    .query(({ ctx, input }) => readEvents(ctx.services.store, ctx.actor, input.workspace_id, input.limit)),
});
