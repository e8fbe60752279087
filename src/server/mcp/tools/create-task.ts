// MCP `create_task` (SPEC §10): parse nothing beyond what the SDK hands over, call the one create function
// (SPEC §4.1, with the MCP-only single-workspace fallback of step 2), map the outcome. Its words are the
// product's promise to agents: they must make the idempotency impossible to misread.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Actor } from '../../domain/access';
import type { CreateOutcome } from '../../domain/creation/operation';
import { createTask } from '../../domain/tasks/create-task';
import { ZCreateEnvelope, ZCreateTaskFields } from '../../domain/tasks/schemas';
import { toCreateResponse } from '../../domain/tasks/responses';
import type { RequestEntry } from '../../observability/request-scope';
import type { Services } from '../../services';
import { guarded, toolResult } from '../results';
import { described, taskBodyShape } from '../schemas';

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

// What each parameter is checked with, in SPEC §4.1's order: the envelope first, the rest only after a lookup miss.
const envelope = ZCreateEnvelope.shape;
const fields = ZCreateTaskFields.shape;

const inputSchema = {
  workspace_id: described(
    envelope.workspace_id,
    'Workspace to create in. Optional when `parent_id` is given or you can access exactly one workspace.',
  ),
  parent_id: described(
    envelope.parent_id,
    "Parent task id. Without `workspace_id`, the task is created in the parent's workspace.",
  ),
  external_id: described(
    envelope.external_id,
    `Your stable identity for the external thing (at most 255 UTF-8 bytes, no control characters, compared exactly). ${CREATE_IF_ABSENT} ${DEDUPLICATED_MEANS} ${UNSETTLED_MEANS}`,
  ),
  title: described(
    fields.title,
    'Task title. Required when a new task is created; ignored when an existing task is returned.',
  ),
  description: described(fields.description, 'Task description.'),
  step_id: described(fields.step_id, "Workflow step; defaults to the workspace's first step."),
  attachments: described(fields.attachments, 'Ids of uploaded, unclaimed attachments to bind to the new task.'),
  repositories: described(
    fields.repositories,
    'Repositories for the task; `fresh_branch: true` creates branch `tether/<identifier>`.',
  ),
  remote_contributions: described(
    fields.remote_contributions,
    'Pull/merge-request URLs to associate with the new task.',
  ),
  start_agent: described(
    fields.start_agent,
    'Prepare and start an agent for the new task once its creation completes (ignored when an existing task is returned).',
  ),
  agent_profile_id: described(fields.agent_profile_id, 'Agent profile to use when `start_agent` is true.'),
  blocked_by: described(
    fields.blocked_by,
    'Task ids this task waits for; an agent start is deferred until they complete.',
  ),
};

const outputSchema = {
  ...taskBodyShape,
  deduplicated: z
    .boolean()
    .describe(
      `true: an existing task holding this external_id was returned. ${DEDUPLICATED_MEANS} false: this call created the task.`,
    ),
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
        const outcome = await createTask(services, actor, args, {
          singleWorkspaceFallback: true,
          surface: 'mcp',
          requestId: request?.id,
        });
        return toolResult(toCreateResponse(outcome), summarize(outcome));
      }, request),
  );
}
