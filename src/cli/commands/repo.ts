// `tether repo add|list`: the repository registry (SPEC §1), targets of `fresh_branch` steps.
import type { Command } from 'commander';
import { addRepository, listRepositories, type GitRepo } from '../../server/domain/git-repos/registry';
import { table, type CliContext } from '../context';

function toBody(r: GitRepo) {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    name: r.name,
    path: r.path,
    default_branch: r.defaultBranch,
    created_at: r.createdAt,
  };
}

export function register(program: Command, ctx: CliContext): void {
  const repo = program.command('repo').description('manage git repositories registered to a workspace');

  repo
    .command('add')
    .description('register a local git repository (its default branch is its HEAD unless named)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--path <dir>', 'path to the repository')
    .option('--name <name>', 'display name (default: the folder name)')
    .option('--default-branch <branch>', 'branch fresh branches start from')
    .action(async (opts: { workspace: string; path: string; name?: string; defaultBranch?: string }) => {
      const r = await addRepository(await ctx.store(), {
        workspaceId: opts.workspace,
        path: opts.path,
        name: opts.name,
        defaultBranch: opts.defaultBranch,
      });
      ctx.print(toBody(r), `registered repository ${r.name} ${r.id} (${r.path}, default branch ${r.defaultBranch})`);
    });

  repo
    .command('list')
    .description("list a workspace's repositories")
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const repos = await listRepositories(await ctx.store(), opts.workspace);
      ctx.print(
        repos.map(toBody),
        table([['ID', 'NAME', 'BRANCH', 'PATH'], ...repos.map((r) => [r.id, r.name, r.defaultBranch, r.path])]),
      );
    });
}
