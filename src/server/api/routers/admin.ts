// admin.* — console settings for workspace admins (SPEC §11: admin manages members, tokens, steps). Every
// procedure checks `admin` on the workspace; anyone else gets the same 404 as a workspace that does not exist.
// Repositories and agent profiles are listed read-only (they are registered with the CLI). Webhooks live in the
// events router (event.webhooks / createWebhook / disableWebhook), which checks `admin` the same way.
import { z } from 'zod';
import { can, ROLES, SCOPES, type Actor } from '../../domain/access';
import { listAgentProfiles } from '../../domain/agents/profiles';
import { DomainError } from '../../domain/errors/domain-error';
import { listRepositories } from '../../domain/git-repos/registry';
import { storedText } from '../../domain/text';
import { createApiToken, findApiToken, listApiTokens, revokeApiToken } from '../../domain/tokens/api-tokens';
import { addMember, listMembers, setMembership } from '../../domain/users/memberships';
import { createStep, listSteps } from '../../domain/workspaces/steps';
import { toStepBody } from '../../domain/workspaces/workspace';
import { protectedProcedure, router } from '../trpc';

const ZId = z.string().min(1).max(200);
const ZWorkspace = z.object({ workspace_id: ZId });
const ZWip = z.number().int().min(0).max(1_000_000).nullable();

function requireAdmin(actor: Actor, workspaceId: string): void {
  if (!can(actor, workspaceId, 'admin')) throw new DomainError('not_found');
}

const adminProcedure = protectedProcedure.input(ZWorkspace).use(function requireWorkspaceAdmin({ ctx, input, next }) {
  requireAdmin(ctx.actor, input.workspace_id);
  return next();
});

export const adminRouter = router({
  members: adminProcedure.query(async ({ ctx, input }) =>
    (await listMembers(ctx.services.store, input.workspace_id)).map((m) => ({
      user_id: m.userId,
      email: m.email,
      role: m.role,
    })),
  ),

  /** Gives an existing user (by email) the role, or creates the user with it. */
  addMember: adminProcedure
    .input(z.object({ email: storedText(254).min(1), role: z.enum(ROLES), password: storedText(1000).nullish() }))
    .mutation(async ({ ctx, input }) => {
      await addMember(ctx.services.store, {
        workspaceId: input.workspace_id,
        email: input.email,
        role: input.role,
        password: input.password,
      });
      return { ok: true };
    }),

  setRole: adminProcedure
    .input(z.object({ user_id: ZId, role: z.enum(ROLES).nullable() }))
    .mutation(async ({ ctx, input }) => {
      // An admin cannot lock themselves out of the page they are using.
      if (input.user_id === ctx.actor.id && input.role !== 'admin' && !ctx.actor.global) {
        throw new DomainError('validation_failed', 'you cannot change your own role');
      }
      await setMembership(ctx.services.store, {
        userId: input.user_id,
        workspaceId: input.workspace_id,
        role: input.role,
      });
      return { ok: true };
    }),

  /** Tokens granted on this workspace. Never their secrets or digests. */
  tokens: adminProcedure.query(async ({ ctx, input }) =>
    (await listApiTokens(ctx.services.store))
      .filter((t) => t.workspaceIds.includes(input.workspace_id))
      .map((t) => ({
        id: t.id,
        name: t.name,
        scopes: t.scopes,
        workspace_ids: t.workspaceIds,
        created_at: t.createdAt,
        revoked_at: t.revokedAt,
        expires_at: t.expiresAt,
        last_used_at: t.lastUsedAt,
      })),
  ),

  /** SPEC §11: the token is in this response and nowhere else, ever. `expires_at`: when it stops working (optional). */
  createToken: adminProcedure
    .input(
      z.object({
        name: storedText(200).min(1),
        scopes: z.array(z.enum(SCOPES)).min(1),
        expires_at: z.string().max(40).nullish(),
      }),
    )
    .mutation(async ({ ctx, input }) =>
      createApiToken(ctx.services.store, {
        name: input.name,
        scopes: input.scopes,
        workspaceIds: [input.workspace_id],
        createdBy: ctx.actor.id,
        expiresAt: input.expires_at ?? null,
      }),
    ),

  revokeToken: adminProcedure.input(z.object({ id: ZId })).mutation(async ({ ctx, input }) => {
    const token = await findApiToken(ctx.services.store, input.id);
    // A token reaching into a workspace this admin does not administer is not theirs to revoke.
    if (
      !token ||
      !token.workspaceIds.includes(input.workspace_id) ||
      !token.workspaceIds.every((w) => can(ctx.actor, w, 'admin'))
    ) {
      throw new DomainError('not_found');
    }
    await revokeApiToken(ctx.services.store, input.id, ctx.services.tokenCache);
    return { ok: true };
  }),

  steps: adminProcedure.query(async ({ ctx, input }) =>
    (await listSteps(ctx.services.store, input.workspace_id)).map(toStepBody),
  ),

  createStep: adminProcedure
    .input(z.object({ name: storedText(100).min(1), wip_limit: ZWip }))
    .mutation(async ({ ctx, input }) =>
      toStepBody(
        await createStep(ctx.services.store, {
          workspaceId: input.workspace_id,
          name: input.name,
          wipLimit: input.wip_limit,
        }),
      ),
    ),

  /** WIP limits apply to later creates only (SPEC §4.1 step 7); tasks already in the step stay. */
  setWipLimit: adminProcedure.input(z.object({ step_id: ZId, wip_limit: ZWip })).mutation(async ({ ctx, input }) => {
    if (!(await ctx.services.store.workspaces.setStepWipLimit(input.workspace_id, input.step_id, input.wip_limit)))
      throw new DomainError('not_found');
    return { ok: true };
  }),

  repositories: adminProcedure.query(async ({ ctx, input }) =>
    (await listRepositories(ctx.services.store, input.workspace_id)).map((r) => ({
      id: r.id,
      name: r.name,
      path: r.path,
      default_branch: r.defaultBranch,
    })),
  ),

  agentProfiles: adminProcedure.query(async ({ ctx, input }) =>
    (await listAgentProfiles(ctx.services.store, input.workspace_id)).map((p) => ({
      id: p.id,
      name: p.name,
      runner: p.runner,
    })),
  ),
});
