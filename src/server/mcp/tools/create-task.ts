// MCP `create_task` (SPEC §10): parse nothing beyond what the SDK hands over, call the one create function
// (SPEC §4.1, with the MCP-only single-workspace fallback of step 2), map the outcome. Its words are the
// product's promise to agents: they must make the idempotency impossible to misread.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Actor } from '../../domain/access';
import type { CreateOutcome } from '../../domain/creation/operation';
import { createTask } from '../../domain/tasks/create-task';
import { MAX_DESCRIPTION_CHARS, MAX_TITLE_CHARS } from '../../domain/tasks/schemas';
import { toCreateResponse } from '../../domain/tasks/responses';
import type { RequestEntry } from '../../observability/request-scope';
import type { Services } from '../../services';
import { guarded, toolResult } from '../results';
import { described, idParam, taskBodyShape } from '../schemas';

// SPEC §10 (1), (2), (3) and §3's narrow meaning of creation_complete, in plain words.
export const CREATE_IF_ABSENT =
  'This tool creates the task when nothing holds the identity: it is create-if-absent, never a way to check whether something exists.';
export const DEDUPLICATED_MEANS = '`deduplicated: true` means nothing new was created, so do not report creating one.';
export const UNSETTLED_MEANS =
  '`deduplicated: true` with `creation_complete: false` means another create may still be running: do not assume the task is ready, and never release and recreate it.';
export const CREATION_COMPLETE_MEANS =
  '`creation_complete` means only that the required synchronous setup finished; it never means the task is done or that an agent is running.';

export const CREATE_TASK_DESCRIPTION = [
  'Create a task, optionally keyed by an `external_id` you already own (a ticket key, a mail thread id, a webhook delivery id, a UUID), so that retries and restarts land on the same task.',
  `${CREATE_IF_ABSENT} There is no lookup tool; do not call this one to look something up.`,
  `${DEDUPLICATED_MEANS} The existing task holding the identity is returned unchanged; the title and other fields of this call are ignored.`,
  UNSETTLED_MEANS,
  CREATION_COMPLETE_MEANS,
  'Workspace: `workspace_id` if given, else the workspace of `parent_id`, else your single accessible workspace.',
  '`title` is required only when a new task is created: a retry carrying the same `external_id` may omit it.',
  'Deleting a task or releasing its identity frees the `external_id`; sending it again afterwards creates a new task.',
].join('\n');

const idArray = (description: string) => described({ type: 'array', items: idParam, maxItems: 100 }, description);

const inputSchema = {
  workspace_id: described(idParam, 'Workspace to create in. Optional when `parent_id` is given or you can access exactly one workspace.'),
  parent_id: described(idParam, 'Parent task id. Without `workspace_id`, the task is created in the parent\'s workspace.'),
  external_id: described(
    { type: ['string', 'null'], maxLength: 255 },
    `Your stable identity for the external thing (at most 255 UTF-8 bytes, no control characters, compared exactly). ${CREATE_IF_ABSENT} ${DEDUPLICATED_MEANS} ${UNSETTLED_MEANS}`,
  ),
  title: described({ type: 'string', minLength: 1, maxLength: MAX_TITLE_CHARS }, 'Task title. Required when a new task is created; ignored when an existing task is returned.'),
  description: described({ type: ['string', 'null'], maxLength: MAX_DESCRIPTION_CHARS }, 'Task description.'),
  step_id: described(idParam, 'Workflow step; defaults to the workspace\'s first step.'),
  attachments: idArray('Ids of uploaded, unclaimed attachments to bind to the new task.'),
  repositories: described(
    {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        properties: { repository_id: idParam, fresh_branch: { type: 'boolean' } },
        required: ['repository_id'],
      },
    },
    'Repositories for the task; `fresh_branch: true` creates branch `tether/<identifier>`.',
  ),
  remote_contributions: described({ type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 2000 } }, 'Pull/merge-request URLs to associate with the new task.'),
  start_agent: described({ type: 'boolean' }, 'Prepare and start an agent for the new task once its creation completes (ignored when an existing task is returned).'),
  agent_profile_id: described(idParam, 'Agent profile to use when `start_agent` is true.'),
  blocked_by: idArray('Task ids this task waits for; an agent start is deferred until they complete.'),
};

const outputSchema = {
  ...taskBodyShape,
  deduplicated: z
    .boolean()
    .describe(`true: an existing task holding this external_id was returned. ${DEDUPLICATED_MEANS} false: this call created the task.`),
  creation_complete: z.boolean().describe(`${CREATION_COMPLETE_MEANS} ${UNSETTLED_MEANS}`),
};

/** One sentence an agent cannot misread, ahead of the JSON. */
function summarize(outcome: CreateOutcome): string {
  const t = outcome.task;
  const held = JSON.stringify(t.externalId);
  switch (outcome.kind) {
    case 'created':
      return `Created task ${t.identifier}.`;
    case 'created_identity_lost':
      return `Created task ${t.identifier}; it holds no external_id (the identity was released while it was being created).`;
    case 'found_settled':
      return `Nothing was created: task ${t.identifier} already holds external_id ${held} and is returned unchanged (deduplicated: true). Do not report creating a task.`;
    case 'found_unsettled':
      return `Nothing was created: task ${t.identifier} already holds external_id ${held}, and its required synchronous setup had not finished when observed (deduplicated: true, creation_complete: false). Another create may still be running: do not assume the task is ready, and never release and recreate it.`;
  }
}

export function registerCreateTask(server: McpServer, services: Services, actor: Actor, request?: RequestEntry): void {
  server.registerTool(
    'create_task',
    {
      title: 'Create a task (create-if-absent by external_id)',
      description: CREATE_TASK_DESCRIPTION,
      inputSchema,
      outputSchema,
      // Not idempotentHint: without an external_id every call creates a new task.
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) =>
      guarded(async () => {
        const outcome = await createTask(services, actor, args, { singleWorkspaceFallback: true, surface: 'mcp', requestId: request?.id });
        return toolResult(toCreateResponse(outcome), summarize(outcome));
      }, request),
  );
}
