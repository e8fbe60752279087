// MCP read tools `get_task` and `list_tasks` (SPEC §10): the same task shape as REST (`toTaskBody`), the same
// domain functions, the same 404 words for anything the caller may not see (SPEC §11). No lookup tool.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Actor } from '../../domain/access';
import { DomainError } from '../../domain/errors/domain-error';
import { validationError } from '../../domain/tasks/create-input';
import { getTask, listTasks, listVisibleWorkspaces } from '../../domain/tasks/get-task';
import { ZTaskListParams } from '../../domain/tasks/list-params';
import { toTaskBody } from '../../model/task';
import type { RequestEntry } from '../../observability/request-scope';
import type { Services } from '../../services';
import { guarded, toolResult } from '../results';
import { described, ZTaskBody, taskBodyShape } from '../schemas';

const id = z.string().min(1).max(200);
const ZGetTaskArgs = z.object({ task_id: id });
// SPEC §10: the same page request as REST and tRPC (list-params.ts).
const ZListTasksArgs = ZTaskListParams.extend({ workspace_id: id.optional() });

/** The SDK passes arguments through unvalidated (see `described`); this is the one place they are checked. */
function parseArgs<T extends z.ZodType>(schema: T, args: unknown): z.infer<T> {
  const r = schema.safeParse(args);
  if (!r.success) throw validationError(r.error);
  return r.data;
}

/** Like create's step 2 fallback (SPEC §4.1): without `workspace_id`, the caller's single visible workspace. */
async function resolveListWorkspace(services: Services, actor: Actor, explicit: string | undefined): Promise<string> {
  if (explicit) return explicit;
  const visible = await listVisibleWorkspaces(services, actor);
  if (visible.length === 1) return visible[0]!.id;
  throw new DomainError('workspace_required');
}

export function registerReadTools(server: McpServer, services: Services, actor: Actor, request?: RequestEntry): void {
  server.registerTool(
    'get_task',
    {
      title: 'Get a task by id',
      description:
        'Read one task by its id. A task that does not exist and one you may not access give the same "task not found" error.',
      inputSchema: {
        task_id: described(
          ZGetTaskArgs.shape.task_id,
          'The task id (a UUID, as returned by create_task or list_tasks).',
        ),
      },
      outputSchema: taskBodyShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { task_id } = parseArgs(ZGetTaskArgs, args);
        return toolResult(toTaskBody(await getTask(services, actor, task_id)));
      }, request),
  );

  server.registerTool(
    'list_tasks',
    {
      title: 'List tasks in a workspace',
      description:
        'List tasks in a workspace, newest first, one page at a time (pass `next_cursor` back as `cursor`). This is a listing, not a lookup by external_id.',
      inputSchema: {
        workspace_id: described(
          ZListTasksArgs.shape.workspace_id,
          'Workspace to list. Optional when you can access exactly one workspace.',
        ),
        archived: described(ZListTasksArgs.shape.archived, 'Archived tasks: include (default), exclude, or only.'),
        limit: described(ZListTasksArgs.shape.limit, 'Page size, 1-200 (default 50).'),
        cursor: described(
          ZListTasksArgs.shape.cursor,
          '`next_cursor` from the previous page, exactly as returned (omit it for the first page).',
        ),
      },
      outputSchema: {
        tasks: z.array(ZTaskBody),
        next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const { workspace_id, ...params } = parseArgs(ZListTasksArgs, args);
        const page = await listTasks(services, actor, {
          workspaceId: await resolveListWorkspace(services, actor, workspace_id),
          ...params,
        });
        return toolResult({ tasks: page.tasks.map(toTaskBody), next_cursor: page.nextCursor });
      }, request),
  );
}
