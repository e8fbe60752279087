// task.* procedures: parse, call the one domain function, map the result (STYLE habit 3).
import { z } from 'zod';
import { deleteTask, setArchived, updateTask } from '../../domain/tasks/change-task';
import { createTask } from '../../domain/tasks/create-task';
import { parseCreateRequest } from '../../domain/tasks/create-request';
import { getTask, listTasks } from '../../domain/tasks/get-task';
import { ZTaskListParams } from '../../domain/tasks/list-params';
import { lookupTaskByExternalId } from '../../domain/tasks/lookup-task';
import { releaseExternalId } from '../../domain/release/release-external-id';
import { toCreateResponse, toLookupResponse } from '../../domain/tasks/responses';
import { toTaskBody } from '../../domain/tasks/task';
import { protectedProcedure, router } from '../trpc';

const ZId = z.string().min(1).max(200);

export const taskRouter = router({
  /**
   * Find-or-create (SPEC §4). The input accepts an identity envelope without a title: the title is enforced
   * only after a lookup miss. `creation_complete:false` (only with `deduplicated:true`) means another create
   * holds the identity and may still be running — it never means "safe to release and retry".
   */
  create: protectedProcedure
    .input(parseCreateRequest)
    .mutation(async ({ ctx, input }) => toCreateResponse(await createTask(ctx.services, ctx.actor, input))),

  byExternalId: protectedProcedure
    .input(z.object({ workspace_id: ZId, external_id: z.unknown() }))
    .query(async ({ ctx, input }) =>
      toLookupResponse(await lookupTaskByExternalId(ctx.services, ctx.actor, input.workspace_id, input.external_id)),
    ),

  /** SPEC §7: `idempotency_key` is a caller-generated UUID; reuse it when retrying the same release. */
  releaseExternalId: protectedProcedure
    .input(z.object({ workspace_id: ZId, external_id: z.unknown(), idempotency_key: z.unknown() }))
    .mutation(async ({ ctx, input }) => {
      const r = await releaseExternalId(ctx.services, ctx.actor, {
        workspaceId: input.workspace_id,
        rawExternalId: input.external_id,
        idempotencyKey: input.idempotency_key,
        source: ctx.source,
      });
      return { status: r.status, released: r.status === 204, replayed: r.replayed, release_id: r.releaseId, holder_task_id: r.holderTaskId };
    }),

  get: protectedProcedure.input(z.object({ id: ZId })).query(async ({ ctx, input }) => toTaskBody(await getTask(ctx.services, ctx.actor, input.id))),

  /** SPEC §10: the same page request as REST and MCP (list-params.ts). */
  list: protectedProcedure
    .input(ZTaskListParams.extend({ workspace_id: ZId }))
    .query(async ({ ctx, input }) => {
      const { workspace_id, ...params } = input;
      const page = await listTasks(ctx.services, ctx.actor, { workspaceId: workspace_id, ...params });
      return { tasks: page.tasks.map(toTaskBody), next_cursor: page.nextCursor };
    }),

  /** SPEC §2.3: `external_id` is ignored here; other fields still apply. */
  update: protectedProcedure
    .input(z.object({ id: ZId, patch: z.unknown() }))
    .mutation(async ({ ctx, input }) => toTaskBody(await updateTask(ctx.services, ctx.actor, input.id, input.patch))),

  archive: protectedProcedure
    .input(z.object({ id: ZId }))
    .mutation(async ({ ctx, input }) => toTaskBody(await setArchived(ctx.services, ctx.actor, input.id, true))),

  unarchive: protectedProcedure
    .input(z.object({ id: ZId }))
    .mutation(async ({ ctx, input }) => toTaskBody(await setArchived(ctx.services, ctx.actor, input.id, false))),

  delete: protectedProcedure.input(z.object({ id: ZId })).mutation(async ({ ctx, input }) => {
    await deleteTask(ctx.services, ctx.actor, input.id);
    return { deleted: true };
  }),
});
