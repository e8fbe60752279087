// The one tRPC setup file (STYLE habit 1): building blocks only. Middlewares are named and narrow `ctx`.
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { DomainError, ERRORS, isDomainError, toDomainError, type ErrorCode } from '../domain/errors/domain-error';
import { noteError } from '../observability/request-scope';
import { validationError } from '../domain/tasks/create-input';
import type { Context } from './context';

export type { Context } from './context';

const t = initTRPC.context<Context>().create({
  // SSE subscriptions (event.onEvent, SPEC §9): the server pings an idle stream every 15 s and tells the client to
  // reconnect (resuming from its lastEventId) after 30 s of silence, so a connection a proxy dropped silently heals.
  sse: { ping: { enabled: true, intervalMs: 15_000 }, client: { reconnectAfterInactivityMs: 30_000 } },
  // Every error leaves with the table's words (STYLE habit 4) and nothing internal: no stack, no cause.
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    let message = error.message;
    // SPEC §10: the domain code, typed as the union of known codes (clients branch on it: `tether/client`).
    let domainCode: ErrorCode | undefined;
    if (isDomainError(cause)) {
      message = cause.message;
      domainCode = cause.code;
    } else if (cause instanceof ZodError) {
      const d = validationError(cause);
      message = d.message;
      domainCode = d.code;
    } else if (error.code === 'PARSE_ERROR' || (error.code === 'BAD_REQUEST' && cause instanceof SyntaxError)) {
      // JSON that does not parse (a body, or `?input=`) is REST's `invalid payload` (SPEC §4.1 step 1), not the
      // parser's own words.
      message = ERRORS.invalid_payload.message;
      domainCode = 'invalid_payload';
    } else if (error.code === 'PAYLOAD_TOO_LARGE') {
      // tRPC's own body limit says only "PAYLOAD_TOO_LARGE"; say what REST says, so every surface names the limit.
      message = ERRORS.payload_too_large.message;
      domainCode = 'payload_too_large';
    } else if (error.code === 'INTERNAL_SERVER_ERROR') {
      const d = toDomainError(cause ?? error);
      message = d.message;
      domainCode = d.code;
    }
    // The request's log line and error counter get the code; a bare 5xx from tRPC itself counts as internal.
    const noted = domainCode ?? (shape.data.httpStatus >= 500 ? 'internal' : undefined);
    if (noted) noteError(ctx?.request, noted as ErrorCode, error.cause ?? error);
    // A 429 says when to come back in `data` too (as `Retry-After` does on the response): a batched call's
    // headers are shared by every call in the batch, so a client reads its own wait here (the console's sign-in form).
    const retryAfter = isDomainError(cause) ? Number(cause.headers?.['retry-after']) : NaN;
    return {
      message,
      code: shape.code,
      data: {
        code: shape.data.code,
        httpStatus: shape.data.httpStatus,
        path: shape.data.path,
        domainCode,
        ...(Number.isFinite(retryAfter) ? { retryAfterSeconds: retryAfter } : {}),
      },
    };
  },
});

/** Domain errors become TRPCErrors with the mapped code; unknown errors are logged and become a generic 500. */
function mapFailure<R extends { ok: boolean }>(result: R, ctx: Context): R {
  if (!result.ok) {
    const error = (result as unknown as { error: TRPCError }).error;
    const cause = error.cause;
    if (isDomainError(cause)) throw asTrpcError(cause, ctx);
    if (error.code === 'INTERNAL_SERVER_ERROR') {
      const domain = toDomainError(cause ?? error);
      // Logged with the request's line (http/observe.ts), with the original error rather than the generic one.
      if (domain.code === 'internal') noteError(ctx.request, 'internal', cause ?? error);
      throw asTrpcError(domain, ctx);
    }
  }
  return result;
}

/** The TRPCError for a DomainError; its headers (`Retry-After` on a 503 or 429) go on the HTTP response. */
function asTrpcError(domain: DomainError, ctx: Context): TRPCError {
  for (const [name, value] of Object.entries(domain.headers ?? {})) ctx.http?.setHeader(name, value);
  return new TRPCError({ code: ERRORS[domain.code].trpc, message: domain.message, cause: domain });
}

const mapErrors = t.middleware(async function mapErrors({ ctx, next }) {
  return mapFailure(await next(), ctx);
});

/**
 * SPEC §11: unauthenticated → 401; narrows `ctx.actor` to non-null; and maps errors like `mapErrors`. One middleware,
 * not two: every tRPC middleware level copies the call's options and context, which is measurable on the hot path.
 */
const requireActor = t.middleware(async function requireActor({ ctx, next }) {
  if (!ctx.actor) {
    const cause = new DomainError('unauthenticated'); // its domain code reaches `data.domainCode`, as REST's 401 says
    throw new TRPCError({ code: 'UNAUTHORIZED', message: cause.message, cause });
  }
  // tRPC merges what `next` is given into the context; only the narrowed field is given, so the context is copied once.
  return mapFailure(await next({ ctx: { actor: ctx.actor } }), ctx);
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const publicProcedure = t.procedure.use(mapErrors);
export const protectedProcedure = t.procedure.use(requireActor);
