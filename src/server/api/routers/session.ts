// session.* — console sign-in (SPEC §11): email + password sets the HttpOnly session cookie; `me` hands the
// same-origin page its CSRF token (cookie-authenticated mutations must echo it in `x-csrf-token`).
// Also first-run onboarding: `setupStatus` / `setup` behind the one-time link the server prints on start.
import { z } from 'zod';
import { listVisibleWorkspaces } from '../../domain/tasks/get-task';
import { DomainError } from '../../domain/errors/domain-error';
import { signInWithPassword } from '../../domain/users/sign-in';
import { completeSetup, setupTokenUsable } from '../../domain/users/setup';
import { createSession, destroySession, sessionCookie, SESSION_TTL_MS } from '../../auth/session';
import type { Context } from '../context';
import { protectedProcedure, publicProcedure, router } from '../trpc';

const ZCredentials = z.object({ email: z.string().min(1).max(254), password: z.string().min(1).max(1000) });

async function signIn(ctx: Context, userId: string) {
  if (!ctx.http) throw new DomainError('validation_failed', 'sign-in needs an HTTP request');
  const s = await createSession(ctx.services.store, userId);
  ctx.http.setCookie(sessionCookie(s.cookieValue, { secure: ctx.http.secure, maxAge: SESSION_TTL_MS / 1000 }));
  return { csrf_token: s.csrfToken, expires_at: s.expiresAt };
}

export const sessionRouter = router({
  /** Null when not signed in with the cookie (a bearer token is not a console session). */
  me: publicProcedure.query(async ({ ctx }) => {
    // Test hook: a session check that fails, to show the console keeps its frame and offers a retry.
    await ctx.services.failpoints.hit('session_me');
    if (!ctx.actor || !ctx.session) return null;
    const s = ctx.session;
    const workspaces = await listVisibleWorkspaces(ctx.services, ctx.actor);
    return {
      user_id: s.userId,
      email: s.email,
      is_admin: s.isAdmin,
      csrf_token: s.csrfToken,
      expires_at: s.expiresAt,
      // The effective role per visible workspace: an instance-wide admin is admin everywhere.
      workspaces: workspaces.map((w) => ({
        ...w,
        role: s.isAdmin ? ('admin' as const) : (s.roles.get(w.id) ?? 'viewer'),
      })),
    };
  }),

  /** Wrong email and wrong password answer the same words; both are throttled alike (429 `sign_in_throttled`). */
  login: publicProcedure.input(ZCredentials).mutation(async ({ ctx, input }) => {
    const user = await signInWithPassword(
      ctx.services.store,
      { addressFailures: ctx.services.config.auth.signInAddressFailures },
      { email: input.email, password: input.password, clientAddress: ctx.http?.clientAddress ?? null },
    );
    return signIn(ctx, user.id);
  }),

  logout: protectedProcedure.mutation(async ({ ctx }) => {
    if (ctx.http?.sessionCookie) await destroySession(ctx.services.store, ctx.http.sessionCookie);
    ctx.http?.setCookie(sessionCookie('', { secure: ctx.http.secure, maxAge: 0 }));
    return { signed_out: true };
  }),

  setupStatus: publicProcedure
    .input(z.object({ token: z.string().max(200) }))
    .query(async ({ ctx, input }) => ({ usable: await setupTokenUsable(ctx.services.store, input.token) })),

  /** Creates the first admin and signs them in; the link is spent. */
  setup: publicProcedure
    .input(ZCredentials.extend({ token: z.string().min(1).max(200) }))
    .mutation(async ({ ctx, input }) => {
      const user = await completeSetup(ctx.services.store, input);
      return { email: user.email, ...(await signIn(ctx, user.id)) };
    }),
});
