// `tether step create|list`.
import { InvalidArgumentError, type Command } from 'commander';
import { DomainError } from '../../server/domain/errors/domain-error';
import { getWorkspace } from '../../server/domain/workspaces/list-workspaces';
import { createStep, listSteps } from '../../server/domain/workspaces/steps';
import { toStepBody } from '../../server/domain/workspaces/workspace';
import { table, type CliContext } from '../context';

function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return Number(value);
}

export function register(program: Command, ctx: CliContext): void {
  const step = program.command('step').description('manage workflow steps');

  step
    .command('create')
    .description('append a workflow step to a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'step name')
    .option('--wip-limit <n>', 'most tasks the step may hold', wholeNumber)
    .option('--done', 'tasks in this step count as done')
    .action(async (opts: { workspace: string; name: string; wipLimit?: number; done?: boolean }) => {
      const created = await createStep(await ctx.store(), {
        workspaceId: opts.workspace,
        name: opts.name,
        wipLimit: opts.wipLimit ?? null,
        isDone: opts.done ?? false,
      });
      ctx.print(toStepBody(created), `created step ${created.name} ${created.id} at position ${created.position}`);
    });

  step
    .command('list')
    .description("list a workspace's steps in order")
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const store = await ctx.store();
      if (!(await getWorkspace(store, opts.workspace)))
        throw new DomainError('not_found', `workspace ${opts.workspace}`);
      const steps = await listSteps(store, opts.workspace);
      ctx.print(
        steps.map(toStepBody),
        table([
          ['ID', 'POS', 'NAME', 'WIP', 'DONE'],
          ...steps.map((s) => [
            s.id,
            String(s.position),
            s.name,
            s.wipLimit === null ? '-' : String(s.wipLimit),
            s.isDone ? 'yes' : '',
          ]),
        ]),
      );
    });
}
