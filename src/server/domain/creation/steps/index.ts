// SPEC §5: every step kind the plan can hold.
import type { StepKind } from '../plan';
import { attachmentClaim } from './attachment-claim';
import { freshBranch } from './fresh-branch';
import { launchIntent, sessionPrepare } from './agent-session';
import { remoteContribution } from './remote-contribution';
import type { StepKindImpl } from './types';
import { workspaceAttachment } from './workspace-attachment';

export const STEP_KINDS: Record<StepKind, StepKindImpl> = {
  workspace_attachment: workspaceAttachment,
  attachment_claim: attachmentClaim,
  fresh_branch: freshBranch,
  remote_contribution: remoteContribution,
  session_prepare: sessionPrepare,
  launch_intent: launchIntent,
};
