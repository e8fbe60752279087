// The repository registry (SPEC §1): git repositories registered to a workspace (local path + default branch),
// the targets of `fresh_branch` steps. Registered by an admin (`tether repo add`).
import { randomUUID } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { dbErrorInfo } from '../../db/errors';
import type { GitRepo } from '../../db/repositories/git-repos';
import type { Store } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { git, resolveRef } from './git';

export type { GitRepo };

export async function addRepository(
  store: Store,
  input: { workspaceId: string; path: string; name?: string; defaultBranch?: string },
): Promise<GitRepo> {
  const path = resolve(input.path);
  if (!(await store.workspaces.find(input.workspaceId)))
    throw new DomainError('validation_failed', 'workspace not found');
  // A real repository, with the default branch resolved now (its HEAD, unless one is named) and holding a commit.
  const inside = await git(path, ['rev-parse', '--is-inside-work-tree']).catch(() =>
    git(path, ['rev-parse', '--is-bare-repository']).catch(() => ''),
  );
  if (inside !== 'true') throw new DomainError('validation_failed', `${path} is not a git repository`);
  const defaultBranch =
    input.defaultBranch ?? (await git(path, ['symbolic-ref', '--short', 'HEAD']).catch(() => 'main'));
  if (!(await resolveRef(path, `refs/heads/${defaultBranch}`))) {
    throw new DomainError('validation_failed', `default branch ${defaultBranch} has no commit in ${path}`);
  }
  const repo: GitRepo = {
    id: randomUUID(),
    workspaceId: input.workspaceId,
    name: input.name ?? basename(path),
    path,
    defaultBranch,
    createdAt: new Date().toISOString(),
  };
  try {
    await store.gitRepos.insert(repo);
  } catch (err) {
    if (dbErrorInfo(err)?.uniqueViolation)
      throw new DomainError('conflict', `${path} is already registered in this workspace`);
    throw err;
  }
  return repo;
}

export function listRepositories(store: Store, workspaceId: string): Promise<GitRepo[]> {
  return store.gitRepos.list(workspaceId);
}
