// The repository registry (SPEC §1): git repositories registered to a workspace, targets of `fresh_branch` steps.
// Registering and listing are cold paths (Prisma Client); the create path's read runs on the driver.
import type { SqlDialect } from '../drivers';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { str } from '../values';

export interface GitRepo {
  id: string;
  workspaceId: string;
  name: string;
  /** Absolute path of the local repository. */
  path: string;
  defaultBranch: string;
  createdAt: string;
}

/** Hot: driver SQL only, so it takes part in a driver transaction (TxRepositories). */
export class GitRepoRepository {
  constructor(
    protected readonly sql: Sql,
    protected readonly dialect: SqlDialect,
  ) {}

  /** Where a repository of the workspace lives (plan building, SPEC §5 `fresh_branch`), or undefined. */
  async findInWorkspace(id: string, workspaceId: string): Promise<{ path: string; defaultBranch: string } | undefined> {
    const row = await this.sql.one<{ path: unknown; default_branch: unknown }>(
      'SELECT path, default_branch FROM repositories WHERE id = $1 AND workspace_id = $2',
      [id, workspaceId],
    );
    return row ? { path: str(row.path), defaultBranch: str(row.default_branch) } : undefined;
  }
}

/** Cold: the hot repository plus its reads and writes on Prisma Client; the store hands it out, never a transaction. */
export class ColdGitRepoRepository extends GitRepoRepository {
  constructor(
    sql: Sql,
    dialect: SqlDialect,
    protected readonly prisma: () => Promise<Prisma>,
  ) {
    super(sql, dialect);
  }

  /** The same path twice in a workspace fails on uniq_repositories_path (the caller decides). */
  async insert(r: GitRepo): Promise<void> {
    const prisma = await this.prisma();
    await prisma.repository.create({ data: { ...r, createdAt: new Date(r.createdAt) }, select: { id: true } });
  }

  /** The workspace's repositories in the order they were registered. */
  async list(workspaceId: string): Promise<GitRepo[]> {
    const prisma = await this.prisma();
    const rows = await prisma.repository.findMany({
      where: { workspaceId },
      select: { id: true, workspaceId: true, name: true, path: true, defaultBranch: true, createdAt: true },
      orderBy: { createdAt: 'asc' },
    });
    return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
  }
}
