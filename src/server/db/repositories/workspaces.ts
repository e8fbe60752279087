// Workspaces and their workflow steps (SPEC §1). The create path's reads of them are here on the driver
// (PostgreSQL batches one: dialect/postgres/workspaces.ts), and so is workspace deletion, which is one driver
// transaction with the task aggregate's deletes (SPEC §8); creating, listing and step admin are cold paths on
// Prisma Client.
import type { WorkflowStep, Workspace } from '../../domain/workspaces/workspace';
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { num, numOrNull, str, strOrNull } from '../values';

/** What a create needs to know about its workspace and target step (SPEC §4.1 step 6). */
export interface CreateTarget {
  /** The requested step if it belongs to the workspace, else (none requested) the first step; null if neither. */
  stepId: string | null;
  wipLimit: number | null;
  /** The workspace's working-folder root (SPEC §5 `workspace_attachment`). */
  rootPath: string | null;
}

export interface TargetRow {
  root_path: unknown;
  step_id: unknown;
  wip_limit: unknown;
}

export function toTarget(r: TargetRow): CreateTarget {
  return { stepId: strOrNull(r.step_id), wipLimit: numOrNull(r.wip_limit), rootPath: strOrNull(r.root_path) };
}

const WORKSPACE_SELECT = {
  id: true,
  name: true,
  prefix: true,
  taskSequence: true,
  rootPath: true,
  createdAt: true,
  updatedAt: true,
} as const;
const STEP_SELECT = {
  id: true,
  workspaceId: true,
  name: true,
  position: true,
  wipLimit: true,
  isDone: true,
  createdAt: true,
} as const;

function toWorkspace(w: {
  id: string;
  name: string;
  prefix: string;
  taskSequence: number;
  rootPath: string | null;
  createdAt: Date;
  updatedAt: Date;
}): Workspace {
  return { ...w, createdAt: w.createdAt.toISOString(), updatedAt: w.updatedAt.toISOString() };
}

function toStep(s: {
  id: string;
  workspaceId: string;
  name: string;
  position: number;
  wipLimit: number | null;
  isDone: boolean;
  createdAt: Date;
}): WorkflowStep {
  return { ...s, createdAt: s.createdAt.toISOString() };
}

/** What a step row holds when it is written (its workspace and position included). */
function stepData(s: WorkflowStep) {
  return { ...s, createdAt: new Date(s.createdAt) };
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class WorkspaceRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** One statement: the workspace, its root and the requested (or first) step with its WIP limit; undefined when
   *  the workspace does not exist. */
  async createTarget(workspaceId: string, stepId: string | null): Promise<CreateTarget | undefined> {
    const row = await this.sql.one<TargetRow>(
      stepId
        ? `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
           LEFT JOIN workflow_steps s ON s.id = $2 AND s.workspace_id = w.id WHERE w.id = $1`
        : `SELECT w.root_path, s.id AS step_id, s.wip_limit FROM workspaces w
           LEFT JOIN workflow_steps s ON s.id = (SELECT id FROM workflow_steps WHERE workspace_id = $1 ORDER BY position LIMIT 1)
           WHERE w.id = $1`,
      stepId ? [workspaceId, stepId] : [workspaceId],
    );
    return row ? toTarget(row) : undefined;
  }

  /** A step of the workspace with its WIP limit (moving a task between steps), or undefined. */
  async findStep(workspaceId: string, stepId: string): Promise<{ id: string; wipLimit: number | null } | undefined> {
    const row = await this.sql.one<{ id: unknown; wip_limit: unknown }>(
      'SELECT id, wip_limit FROM workflow_steps WHERE id = $1 AND workspace_id = $2',
      [stepId, workspaceId],
    );
    return row ? { id: str(row.id), wipLimit: numOrNull(row.wip_limit) } : undefined;
  }

  // ---- deletion (driver; inside the deletion's transaction, SPEC §8) ---------------------------------------------

  /** Locks the workspace row until commit (a concurrent Begin, which bumps task_sequence, waits and then finds no
   *  workspace); false when there is none. */
  async lockForDeletion(workspaceId: string): Promise<boolean> {
    return (
      (await this.sql.one(`SELECT id FROM workspaces WHERE id = $1${this.dialect.forUpdate}`, [workspaceId])) !==
      undefined
    );
  }

  /** The workspace's task ids in number order (the order deletion writes their final events in). */
  async listTaskIds(workspaceId: string): Promise<string[]> {
    const rows = await this.sql.query<{ id: unknown }>('SELECT id FROM tasks WHERE workspace_id = $1 ORDER BY number', [
      workspaceId,
    ]);
    return rows.map((r) => str(r.id));
  }

  /** Creation operations of the workspace still in flight (preparing, completing or aborting). */
  async countOpenCreations(workspaceId: string): Promise<number> {
    const row = await this.sql.one<{ n: unknown }>(
      "SELECT COUNT(*) AS n FROM creation_operations WHERE workspace_id = $1 AND state IN ('preparing', 'completing', 'aborting')",
      [workspaceId],
    );
    return num(row?.n ?? 0);
  }

  /** Moves to `aborting` (with `reason`) the workspace's `preparing` operations whose owner's lease has expired
   *  and none of whose steps is running or of unknown outcome. */
  async abortOrphanedCreations(workspaceId: string, reason: string, at: string): Promise<void> {
    await this.sql.run(
      `UPDATE creation_operations SET state = 'aborting', error = COALESCE(error, $2), updated_at = $3,
            lease_expires_at = COALESCE(lease_expires_at, $3)
        WHERE workspace_id = $1 AND state = 'preparing' AND (lease_expires_at IS NULL OR lease_expires_at < $3)
          AND NOT EXISTS (SELECT 1 FROM creation_steps s WHERE s.operation_id = creation_operations.id AND s.state IN ('running', 'unknown'))`,
      [workspaceId, reason, at],
    );
  }

  /** The row goes; its steps, memberships, grants, repositories and profiles with it (ON DELETE CASCADE). */
  async delete(workspaceId: string): Promise<void> {
    await this.sql.run('DELETE FROM workspaces WHERE id = $1', [workspaceId]);
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdWorkspaceRepository extends WorkspaceRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  /** Sets a step's WIP limit (null: unlimited); false when the workspace has no such step. */
  async setStepWipLimit(workspaceId: string, stepId: string, wipLimit: number | null): Promise<boolean> {
    const prisma = await this.prisma();
    const { count } = await prisma.workflowStep.updateMany({ where: { id: stepId, workspaceId }, data: { wipLimit } });
    return count > 0;
  }

  /** Up to `limit` workspace ids (MCP's single-workspace fallback for a global actor, SPEC §4.1 step 2). */
  async listIds(limit: number): Promise<string[]> {
    const prisma = await this.prisma();
    const rows = await prisma.workspace.findMany({ select: { id: true }, orderBy: { id: 'asc' }, take: limit });
    return rows.map((r) => r.id);
  }

  /** Id, name and prefix of every workspace, by name (console and MCP listings filter by visibility). */
  async listSummaries(): Promise<Array<{ id: string; name: string; prefix: string }>> {
    const prisma = await this.prisma();
    return prisma.workspace.findMany({ select: { id: true, name: true, prefix: true }, orderBy: { name: 'asc' } });
  }

  // ---- admin (Prisma Client) -----------------------------------------------------------------------------------

  /** By prefix. */
  async list(): Promise<Workspace[]> {
    const prisma = await this.prisma();
    return (await prisma.workspace.findMany({ select: WORKSPACE_SELECT, orderBy: { prefix: 'asc' } })).map(toWorkspace);
  }

  async find(id: string): Promise<Workspace | undefined> {
    const prisma = await this.prisma();
    const row = await prisma.workspace.findUnique({ where: { id }, select: WORKSPACE_SELECT });
    return row ? toWorkspace(row) : undefined;
  }

  /** The workspace and its steps, all or nothing. A taken prefix fails on uniq_workspaces_prefix (the caller's). */
  async insertWithSteps(workspace: Workspace, steps: WorkflowStep[]): Promise<void> {
    const prisma = await this.prisma();
    await prisma.$transaction([
      prisma.workspace.create({
        data: { ...workspace, createdAt: new Date(workspace.createdAt), updatedAt: new Date(workspace.updatedAt) },
        select: { id: true },
      }),
      prisma.workflowStep.createMany({ data: steps.map(stepData) }),
    ]);
  }

  /** In position order. */
  async listSteps(workspaceId: string): Promise<WorkflowStep[]> {
    const prisma = await this.prisma();
    return (
      await prisma.workflowStep.findMany({ where: { workspaceId }, select: STEP_SELECT, orderBy: { position: 'asc' } })
    ).map(toStep);
  }

  /**
   * Appends `step` after the workspace's last one (its `position` is ignored); undefined when the workspace does not
   * exist. Two concurrent appends can pick the same position: uniq_workflow_steps_position refuses the second, and
   * the caller decides whether to try again.
   */
  async appendStep(step: Omit<WorkflowStep, 'position'>): Promise<WorkflowStep | undefined> {
    const prisma = await this.prisma();
    return prisma.$transaction(async (tx) => {
      if (!(await tx.workspace.findUnique({ where: { id: step.workspaceId }, select: { id: true } }))) return undefined;
      const last = await tx.workflowStep.aggregate({
        where: { workspaceId: step.workspaceId },
        _max: { position: true },
      });
      const position = last._max.position === null ? 0 : last._max.position + 1;
      return toStep(await tx.workflowStep.create({ data: stepData({ ...step, position }), select: STEP_SELECT }));
    });
  }
}
