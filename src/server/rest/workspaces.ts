// REST workspace deletion (SPEC §8, §10): admin only; a caller who may not administer it gets the ordinary 404.
import { deleteWorkspace } from '../domain/workspaces/delete-workspace';
import { ZWorkspaceDeletion } from '../domain/workspaces/schemas';
import { sendJson } from '../http/body';
import type { RestRoute } from './route';

export const workspaceRoutes: RestRoute[] = [
  {
    method: 'DELETE',
    path: '/workspaces/:workspace_id',
    doc: {
      operationId: 'deleteWorkspace',
      tag: 'Workspaces',
      summary: 'Delete a workspace and its tasks',
      description:
        'Admin only (SPEC §8). Every task is deleted (completed ones with a final revision and `task.deleted` event), identities are freed, creations still running are aborted and compensated. Release records, revisions and events are kept.',
      ok: { status: 200, description: 'What was deleted.', schema: ZWorkspaceDeletion },
      errors: ['not_found'],
    },
    async handle(r) {
      sendJson(r.res, 200, await deleteWorkspace(r.services, r.auth.actor, r.params.workspace_id!));
    },
  },
];
