// SPEC §10: one task-list page request for REST (`GET /workspaces/:id/tasks`), tRPC (`task.list`) and MCP
// (`list_tasks`). A cursor is exactly what `next_cursor` hands out, or nothing: a cursor above 2^31-1 would reach
// PostgreSQL's `integer` column (a 500), and a lenient parser would read `0x10`, `1e3` or `" 5"` as numbers.
import { z } from 'zod';
import { wholeNumber } from '../paging';

/** Task numbers are PostgreSQL `integer` (SQLite keeps the same bound): a cursor is one of them. */
export const MAX_TASK_NUMBER = 2_147_483_647;
const CURSOR_RULE = `expected a next_cursor value (a whole number from 1 to ${MAX_TASK_NUMBER}, digits only)`;

/** `next_cursor` from the previous page; null, absent or empty asks for the first page. */
export const ZTaskCursor = z
  .string({ error: CURSOR_RULE })
  .regex(/^(|[1-9][0-9]{0,9})$/, { error: CURSOR_RULE })
  .refine((v) => Number(v) <= MAX_TASK_NUMBER, { error: CURSOR_RULE });

export const ZTaskListParams = z.object({
  archived: z
    .enum(['include', 'exclude', 'only'])
    .optional()
    .describe('Archived tasks: `include` (default), `exclude` or `only`.'),
  limit: wholeNumber(1, 200).optional().describe('Tasks per page (default 50).'),
  cursor: ZTaskCursor.nullish().describe(
    `\`next_cursor\` of the previous page (digits, 1 to ${MAX_TASK_NUMBER}); absent for the first page.`,
  ),
});
export type TTaskListParams = z.infer<typeof ZTaskListParams>;
