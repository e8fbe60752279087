// Workspaces and their workflow steps (SPEC §1). The create path's one read of them is here on the driver
// (PostgreSQL batches it: dialect/postgres/workspaces.ts); the rest are cold paths on Prisma Client.
import type { SqlDialect } from '../dialect';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { numOrNull, str, strOrNull } from '../values';

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

export class WorkspaceRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
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
    const row = await this.sql.one<{ id: unknown; wip_limit: unknown }>('SELECT id, wip_limit FROM workflow_steps WHERE id = $1 AND workspace_id = $2', [
      stepId,
      workspaceId,
    ]);
    return row ? { id: str(row.id), wipLimit: numOrNull(row.wip_limit) } : undefined;
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
}

