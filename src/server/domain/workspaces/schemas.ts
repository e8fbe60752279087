// Workspace deletion's answer (SPEC §8) as a schema, for the OpenAPI document. `WorkspaceDeletion`
// (./delete-workspace.ts) is held equal to it by tests/unit/openapi-bodies.test.ts.
import { z } from 'zod';

export const ZWorkspaceDeletion = z.object({
  workspace_id: z.string(),
  deleted_tasks: z
    .number()
    .int()
    .describe('Tasks deleted (each completed one with a final revision and `task.deleted` event).'),
  aborting_operations: z
    .number()
    .int()
    .describe(
      'Creation operations that were still running: each ends aborted and its effects are compensated (SPEC §4.4, §6).',
    ),
});
