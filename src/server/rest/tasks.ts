// REST task endpoints (SPEC §10). Each handler parses (through the same envelopes as tRPC and MCP), calls the one
// domain function, and maps the result.
import { DomainError } from '../domain/errors/domain-error';
import { releaseExternalId } from '../domain/release/release-external-id';
import { deleteTask, setArchived, updateTask } from '../domain/tasks/change-task';
import { parseIdentityEnvelope } from '../domain/tasks/create-input';
import { createTask } from '../domain/tasks/create-task';
import { getTask, listTasks } from '../domain/tasks/get-task';
import { ZTaskListParams } from '../domain/tasks/list-params';
import { lookupTaskByExternalId } from '../domain/tasks/lookup-task';
import { toCreateResponse, toLookupResponse } from '../domain/tasks/responses';
import { toTaskBody } from '../domain/tasks/task';
import { readJsonBody, sendJson } from '../http/body';
import { parseQuery, path, type RestRequest, type RestRoute } from './route';

/** One value of a query parameter; repeating it is ambiguous and refused. */
function single(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  if (all.length > 1) throw new DomainError('invalid_payload', `${name} given more than once`);
  return all[0];
}

function noContent(r: RestRequest): void {
  r.res.writeHead(204, { 'cache-control': 'no-store' });
  r.res.end();
}

export const taskRoutes: RestRoute[] = [
  {
    method: 'POST',
    pattern: path('/tasks'),
    async handle(r) {
      const body = await readJsonBody(r.req, r.services.config.http.maxBodyBytes);
      const outcome = await createTask(r.services, r.auth.actor, body);
      sendJson(r.res, 200, toCreateResponse(outcome));
    },
  },
  {
    method: 'GET',
    pattern: path('/tasks/:id'),
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await getTask(r.services, r.auth.actor, r.params.id!)));
    },
  },
  {
    method: 'PATCH',
    pattern: path('/tasks/:id'),
    async handle(r) {
      const body = await readJsonBody(r.req, r.services.config.http.maxBodyBytes);
      sendJson(r.res, 200, toTaskBody(await updateTask(r.services, r.auth.actor, r.params.id!, body)));
    },
  },
  {
    method: 'DELETE',
    pattern: path('/tasks/:id'),
    async handle(r) {
      await deleteTask(r.services, r.auth.actor, r.params.id!);
      noContent(r);
    },
  },
  {
    method: 'POST',
    pattern: path('/tasks/:id/archive'),
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await setArchived(r.services, r.auth.actor, r.params.id!, true)));
    },
  },
  {
    method: 'POST',
    pattern: path('/tasks/:id/unarchive'),
    async handle(r) {
      sendJson(r.res, 200, toTaskBody(await setArchived(r.services, r.auth.actor, r.params.id!, false)));
    },
  },
  {
    method: 'GET',
    pattern: path('/workspaces/:workspace_id/tasks/by-external-id'),
    async handle(r) {
      const req = parseIdentityEnvelope({ workspace_id: r.params.workspace_id, external_id: single(r.query, 'external_id') });
      sendJson(r.res, 200, toLookupResponse(await lookupTaskByExternalId(r.services, r.auth.actor, req.workspace_id, req.external_id)));
    },
  },
  {
    method: 'DELETE',
    pattern: path('/workspaces/:workspace_id/tasks/by-external-id'),
    async handle(r) {
      const key = r.req.headers['idempotency-key'];
      const req = parseIdentityEnvelope({
        workspace_id: r.params.workspace_id,
        external_id: single(r.query, 'external_id'),
        idempotency_key: Array.isArray(key) ? key[0] : key,
        // Issue 15: `?reason=` — why, kept with the release record (not part of the request hash, SPEC §7).
        reason: single(r.query, 'reason'),
      });
      const result = await releaseExternalId(r.services, r.auth.actor, {
        workspaceId: req.workspace_id,
        rawExternalId: req.external_id,
        idempotencyKey: req.idempotency_key,
        rawReason: req.reason,
        source: r.auth.via === 'cookie' ? 'console' : 'rest',
      });
      if (result.status === 204) noContent(r);
      else sendJson(r.res, 404, result.body ?? { error: 'task not found' });
    },
  },
  {
    method: 'GET',
    pattern: path('/workspaces/:workspace_id/tasks'),
    async handle(r) {
      const params = parseQuery(ZTaskListParams, r.query, ['limit']);
      const page = await listTasks(r.services, r.auth.actor, { workspaceId: r.params.workspace_id!, ...params });
      sendJson(r.res, 200, { tasks: page.tasks.map(toTaskBody), next_cursor: page.nextCursor });
    },
  },
];
