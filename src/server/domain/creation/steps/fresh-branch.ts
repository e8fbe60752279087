// SPEC §5 `fresh_branch`: branch `tether/<identifier>` at the repository's default-branch head, with real git.
// Evidence is the ref and the commit; compensation deletes the ref only if it still points there.
import { str } from '../../../db/values';
import { DomainError } from '../../errors/domain-error';
import { createRef, deleteRefIfAt, resolveRef } from '../../git-repos/git';
import type { Evidence, StepKindImpl } from './types';

function target(evidence: Evidence | null): { path: string; ref: string; commit: string } | null {
  if (
    !evidence ||
    typeof evidence.ref !== 'string' ||
    typeof evidence.commit !== 'string' ||
    typeof evidence.path !== 'string'
  )
    return null;
  return { path: evidence.path, ref: evidence.ref, commit: evidence.commit };
}

export const freshBranch: StepKindImpl = {
  async execute(ctx) {
    const path = str(ctx.params.path);
    // A re-run reuses the commit noted before the crash, even if the default branch moved since.
    let t = target(ctx.prior);
    if (!t) {
      const head = await resolveRef(path, `refs/heads/${str(ctx.params.default_branch)}`);
      if (!head)
        throw new DomainError(
          'validation_failed',
          `repositories: default branch ${str(ctx.params.default_branch)} has no commit`,
        );
      t = { path, ref: `refs/heads/tether/${await ctx.identifier()}`, commit: head };
      await ctx.note({ ...t, repository_id: ctx.params.repository_id });
    }
    if ((await createRef(t.path, t.ref, t.commit)) === 'exists' && (await resolveRef(t.path, t.ref)) !== t.commit) {
      throw new DomainError('branch_exists', t.ref.replace('refs/heads/', ''));
    }
    return { ...t, repository_id: ctx.params.repository_id };
  },

  async verify(_ctx, evidence) {
    const t = target(evidence);
    return t && (await resolveRef(t.path, t.ref)) === t.commit ? evidence : null;
  },

  async compensate(_ctx, evidence) {
    const t = target(evidence);
    if (t) await deleteRefIfAt(t.path, t.ref, t.commit);
  },
};
