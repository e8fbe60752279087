// Workflow steps (SPEC §1): ordered by position within a workspace; an optional WIP limit (SPEC §4.1 step 7).
import { randomUUID } from 'node:crypto';
import type { Db, Sql } from '../../db/types';
import { DomainError } from '../errors/domain-error';
import { isUniqueViolationOf } from './unique-violation';
import { rowToStep, STEP_COLUMNS, type WorkflowStep } from './workspace';

export interface CreateStepInput {
  workspaceId: string;
  name: string;
  /** Most tasks the step may hold; null or absent = unlimited. */
  wipLimit?: number | null;
  isDone?: boolean;
}

/** Appends a step after the workspace's last one. */
export async function createStep(db: Db, input: CreateStepInput): Promise<WorkflowStep> {
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
      return await db.transaction(async (tx) => {
        if (!(await tx.one('SELECT id FROM workspaces WHERE id = $1', [input.workspaceId]))) {
          throw new DomainError('not_found', `workspace ${input.workspaceId}`);
        }
        const last = await tx.one<{ p: unknown }>('SELECT MAX(position) AS p FROM workflow_steps WHERE workspace_id = $1', [input.workspaceId]);
        const step: WorkflowStep = {
          id: randomUUID(),
          workspaceId: input.workspaceId,
          name,
          position: last?.p === null || last?.p === undefined ? 0 : Number(last.p) + 1,
          wipLimit,
          isDone: input.isDone ?? false,
          createdAt: new Date().toISOString(),
        };
        await tx.run(
          'INSERT INTO workflow_steps (id, workspace_id, name, position, wip_limit, is_done, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
          [step.id, step.workspaceId, step.name, step.position, step.wipLimit, step.isDone, step.createdAt],
        );
        return step;
      });
    } catch (err) {
      if (attempt < 5 && isUniqueViolationOf(err, 'uniq_workflow_steps_position', 'workflow_steps.workspace_id, workflow_steps.position')) continue;
      throw err;
    }
  }
}

export async function listSteps(db: Sql, workspaceId: string): Promise<WorkflowStep[]> {
  const rows = await db.query(`SELECT ${STEP_COLUMNS} FROM workflow_steps WHERE workspace_id = $1 ORDER BY position`, [workspaceId]);
  return rows.map(rowToStep);
}
