// The task as every floor sees it (the data layer reads and writes it, the domain decides with it), and the one
// shape that leaves the server (STYLE habit 6).
export type CreationState = 'preparing' | 'completing' | 'completed';

export interface Task {
  id: string;
  workspaceId: string;
  number: number;
  identifier: string;
  title: string;
  description: string | null;
  stepId: string;
  parentId: string | null;
  archivedAt: string | null;
  createdAt: string;
  updatedAt: string;
  revision: number;
  creationState: CreationState;
  externalId: string | null;
  externalIdSettledAt: string | null;
}

/** The task body of every surface (REST, tRPC, MCP, events). SPEC §10: snake_case, `external_id` only when held. */
export interface TaskBody {
  id: string;
  workspace_id: string;
  identifier: string;
  title: string;
  description: string | null;
  step_id: string;
  parent_id: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
  revision: number;
  external_id?: string;
}

export function toTaskBody(task: Task): TaskBody {
  const body: TaskBody = {
    id: task.id,
    workspace_id: task.workspaceId,
    identifier: task.identifier,
    title: task.title,
    description: task.description,
    step_id: task.stepId,
    parent_id: task.parentId,
    archived_at: task.archivedAt,
    created_at: task.createdAt,
    updated_at: task.updatedAt,
    revision: task.revision,
  };
  // SPEC §3: omitted, never null or "", when the task holds no identity.
  if (task.externalId !== null) body.external_id = task.externalId;
  return body;
}

/** Whether the task's identity is settled (SPEC §4.3), unsettled (a create may still be running), or absent. */
export type Settlement = 'settled' | 'unsettled' | 'none';

export function settlementOf(externalId: string | null, settledAt: string | null): Settlement {
  if (externalId === null) return 'none';
  return settledAt === null ? 'unsettled' : 'settled';
}
