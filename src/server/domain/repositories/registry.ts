// The repository registry (SPEC §1): git repositories registered to a workspace (local path + default branch),
// the targets of `fresh_branch` steps. Registered by an admin (`tether repo add`).
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import type { Db } from '../../db/types';
import { str } from '../../db/values';
import { dbErrorInfo } from '../../db/dialect';
import { DomainError } from '../errors/domain-error';
import { git, resolveRef } from './git';

export interface Repository {
  id: string;
  workspaceId: string;
  name: string;
  path: string;
  defaultBranch: string;
  createdAt: string;
}

function toRepository(r: Record<string, unknown>): Repository {
  return {
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    name: str(r.name),
    path: str(r.path),
    defaultBranch: str(r.default_branch),
    createdAt: str(r.created_at),
  };
}

export async function addRepository(
  db: Db,
  input: { workspaceId: string; path: string; name?: string; defaultBranch?: string },
): Promise<Repository> {
  const path = resolve(input.path);
  const ws = await db.one('SELECT id FROM workspaces WHERE id = $1', [input.workspaceId]);
  if (!ws) throw new DomainError('validation_failed', 'workspace not found');
  // A real repository, with the default branch resolved now (its HEAD, unless one is named) and holding a commit.
  const inside = await git(path, ['rev-parse', '--is-inside-work-tree']).catch(() => git(path, ['rev-parse', '--is-bare-repository']).catch(() => ''));
  if (inside !== 'true') throw new DomainError('validation_failed', `${path} is not a git repository`);
  const defaultBranch = input.defaultBranch ?? (await git(path, ['symbolic-ref', '--short', 'HEAD']).catch(() => 'main'));
  if (!(await resolveRef(path, `refs/heads/${defaultBranch}`))) {
    throw new DomainError('validation_failed', `default branch ${defaultBranch} has no commit in ${path}`);
  }
  const repo: Repository = {
    id: randomUUID(),
    workspaceId: input.workspaceId,
    name: input.name ?? basename(path),
    path,
    defaultBranch,
    createdAt: new Date().toISOString(),
  };
  try {
    await db.run('INSERT INTO repositories (id, workspace_id, name, path, default_branch, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      repo.id,
      repo.workspaceId,
      repo.name,
      repo.path,
      repo.defaultBranch,
      repo.createdAt,
    ]);
  } catch (err) {
    if (dbErrorInfo(err)?.uniqueViolation) throw new DomainError('conflict', `${path} is already registered in this workspace`);
    throw err;
  }
  return repo;
}

export async function listRepositories(db: Db, workspaceId: string): Promise<Repository[]> {
  const rows = await db.query<Record<string, unknown>>('SELECT * FROM repositories WHERE workspace_id = $1 ORDER BY created_at', [workspaceId]);
  return rows.map(toRepository);
}
