// SPEC §5: turn a validated request into the stored plan, after the lookup miss (SPEC §4.1 step 6) — so a
// drifted retry (a deleted repository, a claimed attachment) still gets its task back. The plan stores what
// each step needs (folder root, repository path) so the steps never depend on settings that change later.
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from '../tasks/create-input';
import { startPolicyFor, type CreationPlan, type PlannedStep } from './plan';
import { normalizeContributionUrl } from './steps/remote-contribution';

/** `rootPath` is the workspace's working-folder root as read by validation (one read per create, not two). */
export async function buildPlan(
  services: Services,
  workspaceId: string,
  fields: TCreateTaskFields,
  rootPath: string | null,
): Promise<CreationPlan> {
  const { store } = services;
  const steps: PlannedStep[] = [];

  if (rootPath) steps.push({ kind: 'workspace_attachment', params: { root: rootPath } });

  // One claim step per non-empty set. "Already claimed" is the step's to decide: it may change before Begin.
  const attachmentIds = [...new Set(fields.attachments ?? [])];
  if ((await store.attachments.countInWorkspace(workspaceId, attachmentIds)) !== attachmentIds.length)
    throw new DomainError('attachment_unavailable');
  if (attachmentIds.length > 0) steps.push({ kind: 'attachment_claim', params: { attachment_ids: attachmentIds } });

  // One fresh_branch per repository entry asking for one (the same repository twice is one branch).
  const branched = new Set<string>();
  for (const entry of fields.repositories ?? []) {
    const repo = await store.gitRepos.findInWorkspace(entry.repository_id, workspaceId);
    if (!repo) throw new DomainError('validation_failed', 'repositories: repository not found in this workspace');
    if (!entry.fresh_branch || branched.has(entry.repository_id)) continue;
    branched.add(entry.repository_id);
    steps.push({
      kind: 'fresh_branch',
      params: { repository_id: entry.repository_id, path: repo.path, default_branch: repo.defaultBranch },
    });
  }

  // One association per distinct normalized URL.
  const urls = [...new Set((fields.remote_contributions ?? []).map(normalizeContributionUrl))];
  for (const url of urls) steps.push({ kind: 'remote_contribution', params: { url } });

  const profileId = fields.agent_profile_id ?? null;
  if (profileId) {
    if (!(await store.agentProfiles.existsInWorkspace(profileId, workspaceId)))
      throw new DomainError('validation_failed', 'agent_profile_id: agent profile not found in this workspace');
  }
  const blockedBy = [...new Set(fields.blocked_by ?? [])];
  if ((await store.tasks.countInWorkspace(workspaceId, blockedBy)) !== blockedBy.length) {
    throw new DomainError('validation_failed', 'blocked_by: task not found in this workspace');
  }

  // SPEC §5: immediate plans exactly one session_prepare and one launch_intent; none/deferred plan neither.
  const startPolicy = startPolicyFor(fields);
  if (startPolicy === 'immediate') {
    steps.push({ kind: 'session_prepare', params: { profile_id: profileId } });
    steps.push({ kind: 'launch_intent', params: { profile_id: profileId, session_step: steps.length - 1 } });
  }
  return { startPolicy, steps, blockedBy, agentProfileId: profileId };
}
