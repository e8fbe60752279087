// SPEC §5: turn a validated request into the stored plan, after the lookup miss (SPEC §4.1 step 6) — so a
// drifted retry (a deleted repository, a claimed attachment) still gets its task back. The plan stores what
// each step needs (folder root, repository path) so the steps never depend on settings that change later.
import type { Db } from '../../db/types';
import { str } from '../../db/values';
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from '../tasks/create-input';
import { startPolicyFor, type CreationPlan, type PlannedStep } from './plan';
import { normalizeContributionUrl } from './steps/remote-contribution';

function placeholders(from: number, n: number): string {
  return Array.from({ length: n }, (_, i) => `$${from + i}`).join(', ');
}

/** Every id exists in the workspace, or a 400 naming the field. */
async function requireAll(db: Db, table: 'attachments' | 'tasks', workspaceId: string, ids: string[], field: string): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db.query<{ id: unknown }>(`SELECT id FROM ${table} WHERE workspace_id = $1 AND id IN (${placeholders(2, ids.length)})`, [
    workspaceId,
    ...ids,
  ]);
  if (rows.length === ids.length) return;
  if (table === 'attachments') throw new DomainError('attachment_unavailable');
  throw new DomainError('validation_failed', `${field}: task not found in this workspace`);
}

/** `rootPath` is the workspace's working-folder root as read by validation (one read per create, not two). */
export async function buildPlan(
  services: Services,
  workspaceId: string,
  fields: TCreateTaskFields,
  rootPath: string | null,
): Promise<CreationPlan> {
  const { db } = services;
  const steps: PlannedStep[] = [];

  if (rootPath) steps.push({ kind: 'workspace_attachment', params: { root: rootPath } });

  // One claim step per non-empty set. "Already claimed" is the step's to decide: it may change before Begin.
  const attachmentIds = [...new Set(fields.attachments ?? [])];
  await requireAll(db, 'attachments', workspaceId, attachmentIds, 'attachments');
  if (attachmentIds.length > 0) steps.push({ kind: 'attachment_claim', params: { attachment_ids: attachmentIds } });

  // One fresh_branch per repository entry asking for one (the same repository twice is one branch).
  const branched = new Set<string>();
  for (const entry of fields.repositories ?? []) {
    const repo = await db.one<{ path: unknown; default_branch: unknown }>(
      'SELECT path, default_branch FROM repositories WHERE id = $1 AND workspace_id = $2',
      [entry.repository_id, workspaceId],
    );
    if (!repo) throw new DomainError('validation_failed', 'repositories: repository not found in this workspace');
    if (!entry.fresh_branch || branched.has(entry.repository_id)) continue;
    branched.add(entry.repository_id);
    steps.push({
      kind: 'fresh_branch',
      params: { repository_id: entry.repository_id, path: str(repo.path), default_branch: str(repo.default_branch) },
    });
  }

  // One association per distinct normalized URL.
  const urls = [...new Set((fields.remote_contributions ?? []).map(normalizeContributionUrl))];
  for (const url of urls) steps.push({ kind: 'remote_contribution', params: { url } });

  const profileId = fields.agent_profile_id ?? null;
  if (profileId) {
    const profile = await db.one('SELECT id FROM agent_profiles WHERE id = $1 AND workspace_id = $2', [profileId, workspaceId]);
    if (!profile) throw new DomainError('validation_failed', 'agent_profile_id: agent profile not found in this workspace');
  }
  const blockedBy = [...new Set(fields.blocked_by ?? [])];
  await requireAll(db, 'tasks', workspaceId, blockedBy, 'blocked_by');

  // SPEC §5: immediate plans exactly one session_prepare and one launch_intent; none/deferred plan neither.
  const startPolicy = startPolicyFor(fields);
  if (startPolicy === 'immediate') {
    steps.push({ kind: 'session_prepare', params: { profile_id: profileId } });
    steps.push({ kind: 'launch_intent', params: { profile_id: profileId, session_step: steps.length - 1 } });
  }
  return { startPolicy, steps, blockedBy, agentProfileId: profileId };
}
