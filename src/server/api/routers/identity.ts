// identity.* — the console's view of SPEC §12 readiness for workspace admins: the attestation this process holds,
// the workspace's legacy rows, resolving one (settle or release, audited), and re-attesting on demand. The domain
// (domain/identity/legacy.ts) checks `admin` on the workspace; anyone else gets the 404 of a workspace not there.
import { z } from 'zod';
import type { AttestationResult } from '../../db/schema/attest';
import {
  attestOnDemand,
  LEGACY_ACTIONS,
  listLegacyIdentities,
  resolveLegacyIdentity,
  type LegacyIdentity,
} from '../../domain/identity/legacy';
import { protectedProcedure, router } from '../trpc';

const ZId = z.string().min(1).max(200);
const ZWorkspace = z.object({ workspace_id: ZId });

function toReadiness(r: AttestationResult) {
  return { ready: r.ready, reasons: r.reasons, checked_at: r.checkedAt };
}

function toLegacyRow(r: LegacyIdentity) {
  return {
    task_id: r.taskId,
    identifier: r.identifier,
    title: r.title,
    external_id: r.externalId,
    creation_state: r.creationState,
    created_at: r.createdAt,
  };
}

export const identityRouter = router({
  /** This process's attestation and the workspace's legacy rows. */
  readiness: protectedProcedure.input(ZWorkspace).query(async ({ ctx, input }) => {
    const legacy = await listLegacyIdentities(ctx.services, ctx.actor, input.workspace_id);
    return { ...toReadiness(ctx.services.readiness.current), legacy: legacy.map(toLegacyRow) };
  }),

  /** Settles or releases one legacy row of the workspace; every process re-attests right after. */
  resolveLegacy: protectedProcedure
    .input(ZWorkspace.extend({ task_id: ZId, action: z.enum(LEGACY_ACTIONS) }))
    .mutation(async ({ ctx, input }) => {
      const r = await resolveLegacyIdentity(ctx.services, ctx.actor, {
        taskId: input.task_id,
        workspaceId: input.workspace_id,
        action: input.action,
        source: ctx.source,
      });
      return {
        resolution_id: r.resolutionId,
        action: r.action,
        task_id: r.task.id,
        external_id: r.externalId,
        readiness: toReadiness(r.readiness),
      };
    }),

  /** Re-attests now: this process at once, every other within about a second. */
  attest: protectedProcedure
    .input(ZWorkspace)
    .mutation(async ({ ctx, input }) =>
      toReadiness(
        await attestOnDemand(ctx.services, ctx.actor, { workspaceId: input.workspace_id, source: ctx.source }),
      ),
    ),
});
