// SPEC §5: the creation plan, built after a lookup miss and stored with the operation. Found plans nothing.
export type StartPolicy = 'none' | 'immediate' | 'deferred';
export type StepKind =
  | 'workspace_attachment'
  | 'attachment_claim'
  | 'fresh_branch'
  | 'remote_contribution'
  | 'session_prepare'
  | 'launch_intent';

export interface PlannedStep {
  kind: StepKind;
  params: Record<string, unknown>;
}

export interface CreationPlan {
  startPolicy: StartPolicy;
  steps: PlannedStep[];
  /** Deferred start (SPEC §5): the blockers whose done step promotes the start-when-unblocked intent. */
  blockedBy: string[];
  /** The agent profile an immediate or deferred start uses (null: the built-in runner). */
  agentProfileId?: string | null;
}

/**
 * SPEC §5 (as amended): `start_agent` alone decides whether an agent starts — blockers alone never schedule
 * one. With `start_agent: true`, non-empty `blocked_by` defers the start (whatever the blockers' state).
 */
export function startPolicyFor(input: { blocked_by?: string[] | null; start_agent?: boolean | null }): StartPolicy {
  if (input.start_agent !== true) return 'none';
  return input.blocked_by && input.blocked_by.length > 0 ? 'deferred' : 'immediate';
}
