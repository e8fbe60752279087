// Workspaces and their workflow steps (SPEC §1) as the domain sees them, and the snake_case bodies that
// leave the server (CLI --json, API reads), mirroring tasks/task.ts.

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
