// event.* — history, the live subscription and webhooks (SPEC §9). Thin edges over domain/events.
// The subscription runs over SSE (client: httpSubscriptionLink). Each event is `tracked` with its seq as the id, so
// a reconnecting client sends it back as `lastEventId` and resumes exactly after it: every missed event once, in order.
import { tracked } from '@trpc/server';
import { z } from 'zod';
import { listEvents, listRevisions } from '../../domain/events/history';
import type { EventRecord } from '../../model/events';
import { parseLastEventId, ZEventPageParams } from '../../domain/events/page-params';
import { openEventStream } from '../../domain/events/stream';
import { createWebhook, disableWebhook, listDeliveries, listWebhooks } from '../../domain/events/webhooks';
import { protectedProcedure, router } from '../trpc';

const ZWorkspace = z.object({ workspace_id: z.string().min(1).max(200) });

/** Each event `tracked` with its seq, the id a reconnecting client sends back as `lastEventId`. */
async function* trackedEvents(stream: AsyncIterable<EventRecord>) {
  for await (const event of stream) yield tracked(String(event.seq), event);
}

export const eventRouter = router({
  list: protectedProcedure
    .input(ZWorkspace.extend(ZEventPageParams.shape)) // the same page request as REST (page-params.ts)
    .query(({ ctx, input }) =>
      listEvents(ctx.services, ctx.actor, { workspaceId: input.workspace_id, after: input.after, limit: input.limit }),
    ),

  /** `task.revisions`: the task's revision history (kept after delete). */
  revisions: protectedProcedure
    .input(z.object({ task_id: z.string().min(1).max(200) }))
    .query(({ ctx, input }) => listRevisions(ctx.services, ctx.actor, input.task_id)),

  // Not a generator: the resume point and the workspace are checked when the procedure runs, before the stream starts,
  // so a refusal is the error table's (NOT_FOUND `not found` for a workspace the caller cannot see, as REST's 404;
  // BAD_REQUEST for a resume point that is not an event id, as REST's 400), not a failure inside a running stream —
  // which tRPC reports as INTERNAL_SERVER_ERROR and its client retries for ever (SPEC §10, §11).
  onEvent: protectedProcedure
    .input(ZWorkspace.extend({ lastEventId: z.string().nullish() }))
    .subscription(({ ctx, input, signal }) => {
      const after = parseLastEventId(input.lastEventId);
      return trackedEvents(
        openEventStream(ctx.services, ctx.actor, input.workspace_id, after, signal ?? new AbortController().signal),
      );
    }),

  createWebhook: protectedProcedure
    .input(
      ZWorkspace.extend({
        url: z.string(),
        secret: z.string().optional(),
        description: z.string().nullable().optional(),
      }),
    )
    .mutation(({ ctx, input }) => {
      const { workspace_id, ...body } = input;
      return createWebhook(ctx.services, ctx.actor, workspace_id, body);
    }),

  webhooks: protectedProcedure
    .input(ZWorkspace)
    .query(({ ctx, input }) => listWebhooks(ctx.services, ctx.actor, input.workspace_id)),

  disableWebhook: protectedProcedure
    .input(ZWorkspace.extend({ webhook_id: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => disableWebhook(ctx.services, ctx.actor, input.workspace_id, input.webhook_id)),

  deliveries: protectedProcedure
    .input(ZWorkspace.extend({ webhook_id: z.string().min(1).max(200), ...ZEventPageParams.shape }))
    .query(({ ctx, input }) =>
      listDeliveries(ctx.services, ctx.actor, {
        workspaceId: input.workspace_id,
        webhookId: input.webhook_id,
        after: input.after,
        limit: input.limit,
      }),
    ),
});
