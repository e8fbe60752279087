// Workspaces and their workflow steps (SPEC §1) as the domain sees them, and the snake_case bodies that
// leave the server (CLI --json, API reads), mirroring tasks/task.ts.
import type { Row } from '../../db/types';
import { bool, num, numOrNull, str, strOrNull } from '../../db/values';

export interface Workspace {
  id: string;
  name: string;
  prefix: string;
  taskSequence: number;
  rootPath: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WorkflowStep {
  id: string;
  workspaceId: string;
  name: string;
  position: number;
  wipLimit: number | null;
  isDone: boolean;
  createdAt: string;
}

export const WORKSPACE_COLUMNS = 'id, name, prefix, task_sequence, root_path, created_at, updated_at';
export const STEP_COLUMNS = 'id, workspace_id, name, position, wip_limit, is_done, created_at';

export function rowToWorkspace(r: Row): Workspace {
  return {
    id: str(r.id),
    name: str(r.name),
    prefix: str(r.prefix),
    taskSequence: num(r.task_sequence),
    rootPath: strOrNull(r.root_path),
    createdAt: str(r.created_at),
    updatedAt: str(r.updated_at),
  };
}

export function rowToStep(r: Row): WorkflowStep {
  return {
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    name: str(r.name),
    position: num(r.position),
    wipLimit: numOrNull(r.wip_limit),
    isDone: bool(r.is_done),
    createdAt: str(r.created_at),
  };
}

export function toWorkspaceBody(w: Workspace) {
  return {
    id: w.id,
    name: w.name,
    prefix: w.prefix,
    task_sequence: w.taskSequence,
    root_path: w.rootPath,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

export function toStepBody(s: WorkflowStep) {
  return {
    id: s.id,
    workspace_id: s.workspaceId,
    name: s.name,
    position: s.position,
    wip_limit: s.wipLimit,
    is_done: s.isDone,
    created_at: s.createdAt,
  };
}
