// Agent profiles (SPEC §1): what an immediate or deferred start launches and through which runner. Creating and
// listing them is a cold path (Prisma Client); the create path's existence check runs on the driver.
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';

export interface AgentProfile {
  id: string;
  workspaceId: string;
  name: string;
  runner: string;
  config: Record<string, unknown>;
  createdAt: string;
}

const SELECT = { id: true, workspaceId: true, name: true, runner: true, config: true, createdAt: true } as const;

function toProfile(r: {
  id: string;
  workspaceId: string;
  name: string;
  runner: string;
  config: string;
  createdAt: Date;
}): AgentProfile {
  return { ...r, config: JSON.parse(r.config) as Record<string, unknown>, createdAt: r.createdAt.toISOString() };
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class AgentProfileRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Whether `id` is a profile of the workspace (plan validation, SPEC §4.1 step 6). */
  async existsInWorkspace(id: string, workspaceId: string): Promise<boolean> {
    return (
      (await this.sql.one('SELECT id FROM agent_profiles WHERE id = $1 AND workspace_id = $2', [id, workspaceId])) !==
      undefined
    );
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdAgentProfileRepository extends AgentProfileRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  /** A second profile with the same name in the workspace fails on uniq_agent_profiles_name (the caller decides). */
  async insert(p: AgentProfile): Promise<void> {
    const prisma = await this.prisma();
    await prisma.agentProfile.create({
      data: { ...p, config: JSON.stringify(p.config), createdAt: new Date(p.createdAt) },
      select: { id: true },
    });
  }

  /** The workspace's profiles by name. */
  async list(workspaceId: string): Promise<AgentProfile[]> {
    const prisma = await this.prisma();
    const rows = await prisma.agentProfile.findMany({
      where: { workspaceId },
      select: SELECT,
      orderBy: { name: 'asc' },
    });
    return rows.map(toProfile);
  }
}
