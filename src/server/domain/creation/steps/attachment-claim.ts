// SPEC §5 `attachment_claim`: binds unclaimed uploaded attachments to the task; fails if any is missing or claimed.
import { num } from '../../../db/values';
import { DomainError } from '../../errors/domain-error';
import type { StepKindImpl } from './types';

function idsOf(params: Record<string, unknown>): string[] {
  return (params.attachment_ids as string[] | undefined) ?? [];
}

function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

export const attachmentClaim: StepKindImpl = {
  async execute(ctx) {
    const ids = idsOf(ctx.params);
    const { operationId, taskId, workspaceId } = ctx.handle;
    await ctx.tx(async (tx) => {
      // Claims only rows that are free or already ours (same operation and step): a re-run is a no-op.
      const n = await tx.run(
        `UPDATE attachments SET task_id = $1, claim_operation_id = $2, claim_step = $3, claimed_at = $4
         WHERE workspace_id = $5 AND id IN (${placeholders(6, ids.length)})
           AND (claim_operation_id IS NULL OR (claim_operation_id = $2 AND claim_step = $3))`,
        [taskId, operationId, ctx.index, new Date().toISOString(), workspaceId, ...ids],
      );
      // Rolls the transaction back: either every attachment is bound or none is.
      if (n !== ids.length) throw new DomainError('attachment_unavailable');
    });
    return { attachment_ids: ids };
  },

  async verify(ctx) {
    const ids = idsOf(ctx.params);
    const row = await ctx.services.db.one<{ n: unknown }>(
      `SELECT COUNT(*) AS n FROM attachments WHERE claim_operation_id = $1 AND claim_step = $2 AND task_id = $3`,
      [ctx.handle.operationId, ctx.index, ctx.handle.taskId],
    );
    return num(row?.n ?? 0) === ids.length ? { attachment_ids: ids } : null;
  },

  async compensate(ctx) {
    await ctx.tx((tx) =>
      tx.run(
        `UPDATE attachments SET task_id = NULL, claim_operation_id = NULL, claim_step = NULL, claimed_at = NULL
         WHERE claim_operation_id = $1 AND claim_step = $2`,
        [ctx.handle.operationId, ctx.index],
      ),
    );
  },
};
