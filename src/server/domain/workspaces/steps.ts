// Workflow steps (SPEC §1): ordered by position within a workspace; an optional WIP limit (SPEC §4.1 step 7).
import { randomUUID } from 'node:crypto';
import type { Store } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { isUniqueViolationOf } from './unique-violation';
import type { WorkflowStep } from './workspace';

export interface CreateStepInput {
  workspaceId: string;
  name: string;
  /** Most tasks the step may hold; null or absent = unlimited. */
  wipLimit?: number | null;
  isDone?: boolean;
}

/** Appends a step after the workspace's last one. */
export async function createStep(store: Store, input: CreateStepInput): Promise<WorkflowStep> {
  const name = input.name.trim();
  if (!name || name.length > 100) throw new DomainError('validation_failed', 'step name must be 1-100 characters');
  const wipLimit = input.wipLimit ?? null;
  if (wipLimit !== null && (!Number.isInteger(wipLimit) || wipLimit < 0)) {
    throw new DomainError('validation_failed', 'WIP limit must be a whole number, 0 or more');
  }
  // Two concurrent appends can pick the same position; uniq_workflow_steps_position refuses the second,
  // which simply tries again with the next free position.
  for (let attempt = 0; ; attempt++) {
    try {
      const step = await store.workspaces.appendStep({
        id: randomUUID(),
        workspaceId: input.workspaceId,
        name,
        wipLimit,
        isDone: input.isDone ?? false,
        createdAt: new Date().toISOString(),
      });
      if (!step) throw new DomainError('not_found', `workspace ${input.workspaceId}`);
      return step;
    } catch (err) {
      if (
        attempt < 5 &&
        isUniqueViolationOf(err, 'uniq_workflow_steps_position', 'workflow_steps.workspace_id, workflow_steps.position')
      )
        continue;
      throw err;
    }
  }
}

export async function listSteps(store: Store, workspaceId: string): Promise<WorkflowStep[]> {
  return store.workspaces.listSteps(workspaceId);
}
