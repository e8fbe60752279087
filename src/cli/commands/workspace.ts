// `tether workspace create|list|delete`. Each command builds a Store over the CLI's database (closed by main; the
// Store holds no connection of its own).
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { SYSTEM_ACTOR } from '../../server/domain/access';
import { createWorkspace } from '../../server/domain/workspaces/create-workspace';
import { deleteWorkspace } from '../../server/domain/workspaces/delete-workspace';
import { getWorkspace, listWorkspaces } from '../../server/domain/workspaces/list-workspaces';
import { toStepBody, toWorkspaceBody } from '../../server/domain/workspaces/workspace';
import { CliError, table, type CliContext } from '../context';

export function register(program: Command, ctx: CliContext): void {
  const workspace = program.command('workspace').description('manage workspaces');

  // SPEC §8: the operator's own action; tasks get their final revisions and `task.deleted` events, in order.
  workspace
    .command('delete <id>')
    .description(
      'delete a workspace: its tasks (final events), in-flight creations abort; history and release records stay',
    )
    .requiredOption('--confirm <prefix>', "the workspace's identifier prefix, typed out to confirm")
    .action(async (id: string, opts: { confirm: string }) => {
      const store = await ctx.store();
      const ws = await getWorkspace(store, id);
      if (!ws) throw new CliError(`no workspace ${id}`);
      if (ws.prefix !== opts.confirm) throw new CliError(`--confirm must be the workspace prefix (${ws.prefix})`);
      const result = await deleteWorkspace({ store }, SYSTEM_ACTOR, id);
      ctx.print(
        result,
        `deleted workspace ${id}: ${result.deleted_tasks} tasks; ${result.aborting_operations} creations aborting`,
      );
    });

  workspace
    .command('create')
    .description('create a workspace with the steps Todo, Doing, Done')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--prefix <prefix>', 'task identifier prefix, 1-10 characters A-Z 0-9 (OPS → OPS-1)')
    .option('--root <dir>', 'working-folder root for task folders')
    .action(async (opts: { name: string; prefix: string; root?: string }) => {
      const created = await createWorkspace(await ctx.store(), {
        name: opts.name,
        prefix: opts.prefix,
        rootPath: opts.root === undefined ? null : resolve(opts.root),
      });
      ctx.print(
        { ...toWorkspaceBody(created), steps: created.steps.map(toStepBody) },
        `created workspace ${created.prefix} ${created.id}\nsteps: ${created.steps.map((s) => s.name).join(', ')}`,
      );
    });

  workspace
    .command('list')
    .description('list workspaces')
    .action(async () => {
      const all = await listWorkspaces(await ctx.store());
      ctx.print(
        all.map(toWorkspaceBody),
        all.length ? table([['ID', 'PREFIX', 'NAME'], ...all.map((w) => [w.id, w.prefix, w.name])]) : 'no workspaces',
      );
    });
}
