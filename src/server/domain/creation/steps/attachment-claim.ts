// SPEC §5 `attachment_claim`: binds unclaimed uploaded attachments to the task; fails if any is missing or claimed.
import { DomainError } from '../../errors/domain-error';
import type { StepKindImpl } from './types';

function idsOf(params: Record<string, unknown>): string[] {
  return (params.attachment_ids as string[] | undefined) ?? [];
}

export const attachmentClaim: StepKindImpl = {
  async execute(ctx) {
    const ids = idsOf(ctx.params);
    const { operationId, taskId, workspaceId } = ctx.handle;
    await ctx.tx(async (tx) => {
      // Claims only rows that are free or already ours (same operation and step): a re-run is a no-op.
      const n = await tx.attachments.claim(
        { workspaceId, taskId, operationId, stepIndex: ctx.index },
        ids,
        new Date().toISOString(),
      );
      // Rolls the transaction back: either every attachment is bound or none is.
      if (n !== ids.length) throw new DomainError('attachment_unavailable');
    });
    return { attachment_ids: ids };
  },

  async verify(ctx) {
    const ids = idsOf(ctx.params);
    const { operationId, taskId } = ctx.handle;
    const n = await ctx.services.store.attachments.countClaimed({ operationId, stepIndex: ctx.index, taskId });
    return n === ids.length ? { attachment_ids: ids } : null;
  },

  async compensate(ctx) {
    await ctx.tx((tx) => tx.attachments.unclaim(ctx.handle.operationId, ctx.index));
  },
};
