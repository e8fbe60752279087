// task.* procedures: parse, call the one domain function, map the result (STYLE habit 3). The inputs are typed by the
// shared request schemas (domain/tasks/schemas.ts) and checked in SPEC order by the domain (./domain-input.ts).
import { z } from 'zod';
import { deleteTask, setArchived, updateTask } from '../../domain/tasks/change-task';
import { createTask } from '../../domain/tasks/create-task';
import { parseIdentityEnvelope } from '../../domain/tasks/create-input';
import { getTask, listTasks } from '../../domain/tasks/get-task';
import { ZTaskListParams } from '../../domain/tasks/list-params';
import { lookupTaskByExternalId } from '../../domain/tasks/lookup-task';
import { releaseExternalId } from '../../domain/release/release-external-id';
import { toCreateResponse, toLookupResponse, toReleaseResponse } from '../../domain/tasks/responses';
import {
  ZCreateTaskRequest,
  ZId,
  ZLookupRequest,
  ZReleaseRequest,
  ZTaskUpdateEnvelope,
  ZUpdateTaskRequest,
} from '../../domain/tasks/schemas';
import { toTaskBody } from '../../model/task';
import { domainInput } from '../domain-input';
import { protectedProcedure, router } from '../trpc';

const ZTaskRef = z.object({ id: ZId });

export const taskRouter = router({
  /**
   * Find-or-create (SPEC §4). Names `workspace_id` or `parent_id`; accepts an identity envelope without a title: the
   * title is enforced only after a lookup miss. `creation_complete:false` (only with `deduplicated:true`) means
   * another create holds the identity and may still be running — it never means "safe to release and retry".
   */
  create: protectedProcedure
    // createTask reads the envelope itself, first (SPEC §4.1 step 1), as for REST and MCP.
    .input(domainInput(ZCreateTaskRequest, (raw) => raw))
    .mutation(async ({ ctx, input }) =>
      toCreateResponse(
        await createTask(ctx.services, ctx.actor, input, { surface: 'trpc', requestId: ctx.request?.id }),
      ),
    ),

  /** SPEC §7 lookup: the task holding the identity, archived and unsettled included; else `NOT_FOUND`. */
  byExternalId: protectedProcedure
    .input(domainInput(ZLookupRequest, parseIdentityEnvelope))
    .query(async ({ ctx, input }) =>
      toLookupResponse(await lookupTaskByExternalId(ctx.services, ctx.actor, input.workspace_id, input.external_id)),
    ),

  /**
   * SPEC §7 release. `idempotency_key` is a UUID you generate once and reuse when retrying. Released → data;
   * nothing holds it → `NOT_FOUND` `task not found` (stored, so a retry with the key answers the same).
   */
  releaseExternalId: protectedProcedure
    .input(domainInput(ZReleaseRequest, parseIdentityEnvelope))
    .mutation(async ({ ctx, input }) =>
      toReleaseResponse(
        await releaseExternalId(ctx.services, ctx.actor, {
          workspaceId: input.workspace_id,
          rawExternalId: input.external_id,
          idempotencyKey: input.idempotency_key,
          rawReason: input.reason,
          source: ctx.source,
          requestId: ctx.request?.id,
        }),
      ),
    ),

  get: protectedProcedure
    .input(ZTaskRef)
    .query(async ({ ctx, input }) => toTaskBody(await getTask(ctx.services, ctx.actor, input.id))),

  /** SPEC §10: the same page request as REST and MCP (list-params.ts). */
  list: protectedProcedure.input(ZTaskListParams.extend({ workspace_id: ZId })).query(async ({ ctx, input }) => {
    const { workspace_id, ...params } = input;
    const page = await listTasks(ctx.services, ctx.actor, { workspaceId: workspace_id, ...params });
    return { tasks: page.tasks.map(toTaskBody), next_cursor: page.nextCursor };
  }),

  /** SPEC §2.3: `external_id` is ignored here; other fields still apply. The patch is checked as PATCH checks it. */
  update: protectedProcedure
    .input(domainInput(ZUpdateTaskRequest, (raw) => ZTaskUpdateEnvelope.parse(raw)))
    .mutation(async ({ ctx, input }) => toTaskBody(await updateTask(ctx.services, ctx.actor, input.id, input.patch))),

  archive: protectedProcedure
    .input(ZTaskRef)
    .mutation(async ({ ctx, input }) => toTaskBody(await setArchived(ctx.services, ctx.actor, input.id, true))),

  unarchive: protectedProcedure
    .input(ZTaskRef)
    .mutation(async ({ ctx, input }) => toTaskBody(await setArchived(ctx.services, ctx.actor, input.id, false))),

  delete: protectedProcedure.input(ZTaskRef).mutation(async ({ ctx, input }) => {
    await deleteTask(ctx.services, ctx.actor, input.id);
    return { deleted: true as const };
  }),
});
