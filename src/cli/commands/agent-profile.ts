// `tether agent-profile create|list`: what an agent start launches and through which runner.
import { InvalidArgumentError, type Command } from 'commander';
import { createAgentProfile, listAgentProfiles, type AgentProfile } from '../../server/domain/agents/profiles';
import { table, type CliContext } from '../context';

function toBody(p: AgentProfile) {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    runner: p.runner,
    config: p.config,
    created_at: p.createdAt,
  };
}

function jsonObject(value: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(value);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new InvalidArgumentError('must be a JSON object');
}

export function register(program: Command, ctx: CliContext): void {
  const profile = program.command('agent-profile').description('manage agent profiles');

  profile
    .command('create')
    .description(
      "create an agent profile (runner: builtin — the server's TETHER_AGENT_COMMAND — or webhook with --webhook-url)",
    )
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'profile name')
    .option('--runner <runner>', 'agent runner', 'builtin')
    .option('--webhook-url <url>', 'where the webhook runner posts launches')
    .option('--config <json>', 'runner settings as a JSON object', jsonObject)
    .action(
      async (opts: {
        workspace: string;
        name: string;
        runner: string;
        webhookUrl?: string;
        config?: Record<string, unknown>;
      }) => {
        const config = { ...(opts.config ?? {}), ...(opts.webhookUrl ? { url: opts.webhookUrl } : {}) };
        const services = await ctx.services();
        const p = await createAgentProfile(
          services.store,
          { workspaceId: opts.workspace, name: opts.name, runner: opts.runner, config },
          services.destinations,
        );
        ctx.print(toBody(p), `created agent profile ${p.name} ${p.id} (runner ${p.runner})`);
      },
    );

  profile
    .command('list')
    .description("list a workspace's agent profiles")
    .requiredOption('--workspace <id>', 'workspace id')
    .action(async (opts: { workspace: string }) => {
      const profiles = await listAgentProfiles(await ctx.store(), opts.workspace);
      ctx.print(
        profiles.map(toBody),
        table([['ID', 'NAME', 'RUNNER'], ...profiles.map((p) => [p.id, p.name, p.runner])]),
      );
    });
}
