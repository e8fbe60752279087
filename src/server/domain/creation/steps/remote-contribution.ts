// SPEC §5 `remote_contribution`: the normalized PR/MR URL associated with the task; unique across the workspace.
import { str } from '../../../db/values';
import { DomainError } from '../../errors/domain-error';
import { stableId } from '../stable-id';
import type { StepKindImpl } from './types';

/**
 * One spelling per pull/merge request: lower-case scheme and host, no default port, credentials, query,
 * fragment or trailing slash, and a trailing sub-page of a PR/MR (`/files`, `/diffs`, ...) cut off. The path
 * keeps its case (hosts other than the big forges may be case-sensitive). Throws a 400 for anything else.
 */
export function normalizeContributionUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new DomainError('validation_failed', 'remote_contributions: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new DomainError('validation_failed', 'remote_contributions: must be an http(s) URL');
  }
  let path = url.pathname.replace(/\/+$/, '');
  const pr = /^(.*\/(?:pull|pulls|merge_requests)\/\d+)(?:\/.*)?$/.exec(path);
  if (pr) path = pr[1]!;
  const port = url.port ? `:${url.port}` : '';
  return `${url.protocol}//${url.hostname.toLowerCase()}${port}${path}`;
}

export const remoteContribution: StepKindImpl = {
  async execute(ctx) {
    const url = str(ctx.params.url);
    const { operationId, taskId, workspaceId } = ctx.handle;
    const id = stableId(operationId, ctx.index, 'contribution');
    await ctx.tx(async (tx) => {
      await tx.contributions.associate({
        id,
        workspaceId,
        url,
        taskId,
        operationId,
        stepIndex: ctx.index,
        at: new Date().toISOString(),
      });
      // The unique index decides (STYLE habit 8): whoever holds the URL now, it must be this step's own row.
      if ((await tx.contributions.holderOf(workspaceId, url)) !== id)
        throw new DomainError('contribution_already_associated', url);
    });
    return { id, url };
  },

  async verify(ctx) {
    return (
      (await ctx.services.store.contributions.findByStep(ctx.handle.operationId, ctx.index, ctx.handle.taskId)) ?? null
    );
  },

  async compensate(ctx) {
    await ctx.tx((tx) => tx.contributions.removeByStep(ctx.handle.operationId, ctx.index));
  },
};
