// REST task endpoints (SPEC §10). Each handler parses (through the same envelopes as tRPC and MCP), calls the one
// domain function, and maps the result. Each route's `doc` is its part of the OpenAPI document (./openapi.ts).
import { z } from 'zod';
import { releaseExternalId } from '../domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../domain/tasks/change-task';
import { parseIdentityEnvelope } from '../domain/tasks/create-input';
import { createTask } from '../domain/tasks/create-task';
import { getTask, listTasks } from '../domain/tasks/get-task';
import { ZTaskListParams } from '../domain/tasks/list-params';
import { lookupTaskByExternalId } from '../domain/tasks/lookup-task';
import { toCreateResponse, toLookupResponse } from '../domain/tasks/responses';
import {
  ZCreateTaskRequest,
  ZCreateTaskResult,
  ZIdempotencyKey,
  ZLookupRequest,
  ZLookupResult,
  ZReleaseReason,
  ZTaskBody,
  ZTaskPage,
  ZUpdateTaskInput,
} from '../domain/tasks/schemas';
import { toTaskBody } from '../model/task';
import { readJsonBody, sendJson } from '../http/body';
import { parseQuery, type RestRequest, type RestRoute } from './route';

/** The identity in the query string, as the document states it (required). */
const ZExternalIdQuery = ZLookupRequest.pick({ external_id: true });
/**
 * What the edge reads before authorization (SPEC §4.1 steps 1–3): the identity when present, once. "Missing" is
 * answered after authorization, by the domain (SPEC §2.1), so here it is optional.
 */
const ZExternalIdEnvelope = ZExternalIdQuery.partial();
/** SPEC §7: the release's key travels as a header. Checked by the domain after authorization, with ZIdempotencyKey. */
const ZReleaseHeaders = z.object({ 'Idempotency-Key': ZIdempotencyKey });
/**
 * The release's query: the identity, and an optional reason (shown in the identity's history), checked by the domain
 * after authorization.
 */
const ZReleaseQuery = ZExternalIdQuery.extend({ reason: ZReleaseReason.optional() });
const ZReleaseEnvelope = ZReleaseQuery.partial();

function noContent(r: RestRequest): void {
  r.res.writeHead(204, { 'cache-control': 'no-store' });
  r.res.end();
}

const TASK_WRITE_ERRORS = ['task_not_found', 'forbidden', 'conflict'] as const;

export const taskRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/tasks',
    doc: {
      operationId: 'createTask',
      tag: 'Tasks',
      summary: 'Find or create a task by its external identity',
      description:
        'Create-if-absent, never a check (SPEC §4). With an `external_id` that a task of the workspace already holds, nothing is created and that task comes back unchanged (`deduplicated: true`), whatever else the request says: the lookup happens before the rest is validated, so a retry whose payload drifted still gets its task back. `deduplicated: true, creation_complete: false` means another create holds the identity and may still be running — it never means "safe to release and retry". `external_id` is absent from the answer when the identity was released while the task was being created. Duplicates are never 409/410.',
      body: { schema: ZCreateTaskRequest },
      ok: {
        status: 200,
        description: 'Created, or found (see `deduplicated` and `creation_complete`).',
        schema: ZCreateTaskResult,
      },
      errors: [
        'workspace_required',
        'title_required',
        'invalid_external_id_control',
        'invalid_external_id_length',
        'validation_failed',
        'attachment_unavailable',
        'task_not_created',
        'wip_limit_exceeded',
        'contribution_already_associated',
        'branch_exists',
        'creation_step_failed',
        'identity_not_ready',
        'identity_contended',
      ],
    },
    async handle(r) {
      const body = await readJsonBody(r.req, r.services.config.http.maxBodyBytes);
      const outcome = await createTask(r.services, r.auth.actor, body, {
        surface: 'rest',
        requestId: r.services.requests.of(r.req)?.id,
      });
      sendJson(r.res, 200, toCreateResponse(outcome));
    },
  },
  {
    method: 'GET',
    path: '/tasks/:id',
    doc: {
      operationId: 'getTask',
      tag: 'Tasks',
      summary: 'Read a task',
      ok: { status: 200, description: 'The task.', schema: ZTaskBody },
      errors: ['task_not_found'],
    },
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await getTask(r.services, r.auth.actor, r.params.id!)));
    },
  },
  {
    method: 'PATCH',
    path: '/tasks/:id',
    doc: {
      operationId: 'updateTask',
      tag: 'Tasks',
      summary: "Change a task's title, description or step",
      description:
        '`external_id` is ignored: an identity is set once, at create (SPEC §2.3); the other fields still apply.',
      body: { schema: ZUpdateTaskInput },
      ok: { status: 200, description: 'The task as changed.', schema: ZTaskBody },
      errors: ['validation_failed', 'title_required', ...TASK_WRITE_ERRORS, 'wip_limit_exceeded'],
    },
    async handle(r) {
      const body = await readJsonBody(r.req, r.services.config.http.maxBodyBytes);
      sendJson(r.res, 200, toTaskBody(await updateTask(r.services, r.auth.actor, r.params.id!, body)));
    },
  },
  {
    method: 'DELETE',
    path: '/tasks/:id',
    doc: {
      operationId: 'deleteTask',
      tag: 'Tasks',
      summary: 'Delete a task',
      description: 'Frees its identity: the same `external_id` then creates a new task (no tombstone, SPEC §2.3).',
      ok: { status: 204, description: 'Deleted.' },
      errors: ['task_not_found', 'forbidden'],
    },
    async handle(r) {
      await deleteTask(r.services, r.auth.actor, r.params.id!);
      noContent(r);
    },
  },
  {
    method: 'POST',
    path: '/tasks/:id/archive',
    doc: {
      operationId: 'archiveTask',
      tag: 'Tasks',
      summary: 'Archive a task',
      description: 'Archiving keeps the identity (SPEC §8): a create with it finds the task, still archived.',
      ok: { status: 200, description: 'The task, archived.', schema: ZTaskBody },
      errors: TASK_WRITE_ERRORS,
    },
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await setArchived(r.services, r.auth.actor, r.params.id!, true)));
    },
  },
  {
    method: 'POST',
    path: '/tasks/:id/unarchive',
    doc: {
      operationId: 'unarchiveTask',
      tag: 'Tasks',
      summary: 'Unarchive a task',
      ok: { status: 200, description: 'The task, not archived.', schema: ZTaskBody },
      errors: TASK_WRITE_ERRORS,
    },
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await setArchived(r.services, r.auth.actor, r.params.id!, false)));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_id/tasks/by-external-id',
    doc: {
      operationId: 'lookupTaskByExternalId',
      tag: 'Identity',
      summary: 'Look up the task holding an external identity',
      description: 'Read-only (SPEC §7): the holder, archived and unsettled included, with `creation_complete`.',
      query: ZExternalIdQuery,
      ok: { status: 200, description: 'The task holding the identity.', schema: ZLookupResult },
      errors: [
        'external_id_required',
        'invalid_external_id_control',
        'invalid_external_id_length',
        'task_not_found',
        'identity_not_ready',
      ],
    },
    async handle(r) {
      const { external_id } = parseQuery(ZExternalIdEnvelope, r.query);
      const req = parseIdentityEnvelope({ workspace_id: r.params.workspace_id, external_id });
      sendJson(
        r.res,
        200,
        toLookupResponse(await lookupTaskByExternalId(r.services, r.auth.actor, req.workspace_id, req.external_id)),
      );
    },
  },
  {
    method: 'DELETE',
    path: '/workspaces/:workspace_id/tasks/by-external-id',
    doc: {
      operationId: 'releaseExternalId',
      tag: 'Identity',
      summary: 'Release an external identity (the task is kept)',
      description:
        'An operator action, never automated (SPEC §7); needs the `operator` role or the `identities:release` scope. Send a UUID you generate as `Idempotency-Key` and reuse it when you retry: the same key with the same request answers the stored result (204 or 404) whoever holds the identity now; with a different request it is 409 `idempotency_key_conflict`. A holder whose creation is completing or aborting is 409 `creation_completing` / `creation_aborting`: nothing changed, retry with the same key. After a release the same `external_id` creates a new task.',
      query: ZReleaseQuery,
      headers: ZReleaseHeaders,
      ok: {
        status: 204,
        description: 'Released: the holder keeps its task without the identity (also the replay of a stored release).',
      },
      errors: [
        'external_id_required',
        'invalid_external_id_control',
        'invalid_external_id_length',
        'idempotency_key_required',
        'idempotency_key_invalid',
        'validation_failed',
        'task_not_found',
        'creation_completing',
        'creation_aborting',
        'idempotency_key_conflict',
        'identity_not_ready',
      ],
    },
    async handle(r) {
      const key = r.req.headers['idempotency-key'];
      const { external_id, reason } = parseQuery(ZReleaseEnvelope, r.query);
      const req = parseIdentityEnvelope({
        workspace_id: r.params.workspace_id,
        external_id,
        idempotency_key: Array.isArray(key) ? key[0] : key,
        // `?reason=` — why, kept with the release record (not part of the request hash, SPEC §7).
        reason,
      });
      const result = await releaseExternalId(r.services, r.auth.actor, {
        workspaceId: req.workspace_id,
        rawExternalId: req.external_id,
        idempotencyKey: req.idempotency_key,
        rawReason: req.reason,
        source: r.auth.via === 'cookie' ? 'console' : 'rest',
        requestId: r.services.requests.of(r.req)?.id,
      });
      if (result.status === 204) noContent(r);
      else sendJson(r.res, 404, result.body ?? { error: 'task not found' });
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_id/tasks',
    doc: {
      operationId: 'listTasks',
      tag: 'Tasks',
      summary: "A page of a workspace's tasks, newest first",
      query: ZTaskListParams,
      ok: { status: 200, description: 'One page; continue with `next_cursor`.', schema: ZTaskPage },
      errors: ['validation_failed', 'not_found'],
    },
    async handle(r) {
      const params = parseQuery(ZTaskListParams, r.query, ['limit']);
      const page = await listTasks(r.services, r.auth.actor, { workspaceId: r.params.workspace_id!, ...params });
      sendJson(r.res, 200, { tasks: page.tasks.map(toTaskBody), next_cursor: page.nextCursor });
    },
  },
];
