// REST workspace deletion (SPEC §8, §10): admin only; a caller who may not administer it gets the ordinary 404.
import { deleteWorkspace } from '../domain/workspaces/delete-workspace';
import { sendJson } from '../http/body';
import { path, type RestRoute } from './route';

export const workspaceRoutes: RestRoute[] = [
  {
    method: 'DELETE',
    pattern: path('/workspaces/:workspace_id'),
    async handle(r) {
      sendJson(r.res, 200, await deleteWorkspace(r.services, r.auth.actor, r.params.workspace_id!));
    },
  },
];
