// `tether identity legacy list|resolve` and `tether attest` (SPEC §12): the operator's way out of legacy identity
// rows, and on-demand re-attestation. Every running server process re-attests within about a second of a resolution
// or an `attest` (it polls for requests), so readiness returns without a restart.
import type { Command } from 'commander';
import type { AttestationResult } from '../../server/db/schema/attest';
import { attestOnDemand, listLegacyIdentities, resolveLegacyIdentity } from '../../server/domain/identity/legacy';
import { CliError, cliActor, table, type CliContext } from '../context';

function readinessLine(r: AttestationResult): string {
  return r.ready ? 'ready' : `NOT READY: ${r.reasons.join('; ')}`;
}

function readinessBody(r: AttestationResult) {
  return { ready: r.ready, reasons: r.reasons, legacy: r.legacy, checked_at: r.checkedAt };
}

export function register(program: Command, ctx: CliContext): void {
  const legacy = program
    .command('identity')
    .description('external identities: legacy rows that block readiness')
    .command('legacy')
    .description('tasks holding an external_id with no settlement and no creation operation (SPEC §12)');

  legacy
    .command('list')
    .description('list legacy rows (they block readiness until resolved)')
    .option('--workspace <id>', 'only this workspace')
    .action(async (opts: { workspace?: string }) => {
      const services = await ctx.services();
      const rows = await listLegacyIdentities(services, cliActor(), opts.workspace);
      ctx.print(
        rows.map((r) => ({
          task_id: r.taskId,
          workspace_id: r.workspaceId,
          identifier: r.identifier,
          title: r.title,
          external_id: r.externalId,
          creation_state: r.creationState,
          created_at: r.createdAt,
        })),
        rows.length
          ? table([
              ['TASK', 'IDENTIFIER', 'EXTERNAL ID', 'WORKSPACE'],
              ...rows.map((r) => [r.taskId, r.identifier, JSON.stringify(r.externalId), r.workspaceId]),
            ])
          : 'no legacy rows',
      );
    });

  legacy
    .command('resolve <task-id>')
    .description(
      'resolve one legacy row: --settle keeps its identity (now settled), --release frees it (the task stays)',
    )
    .option('--settle', 'settle the identity as it is')
    .option('--release', 'release the identity; the next create with it makes a new task')
    .action(async (taskId: string, opts: { settle?: boolean; release?: boolean }) => {
      if (opts.settle === opts.release) throw new CliError('say what to do: exactly one of --settle or --release');
      const services = await ctx.services();
      const action = opts.settle ? 'settle' : 'release';
      const r = await resolveLegacyIdentity(services, cliActor(), { taskId, action, source: 'cli' });
      const done = action === 'settle' ? 'settled' : 'released';
      ctx.print(
        {
          resolution_id: r.resolutionId,
          action,
          task_id: r.task.id,
          workspace_id: r.task.workspaceId,
          identifier: r.task.identifier,
          external_id: r.externalId,
          readiness: readinessBody(r.readiness),
        },
        `${done} ${JSON.stringify(r.externalId)} on ${r.task.identifier} (${r.task.id})\nschema: ${readinessLine(r.readiness)}`,
      );
    });

  program
    .command('attest')
    .description(
      'attest the identity schema now; running servers re-attest within about a second (exit 1 when not ready)',
    )
    .action(async () => {
      const services = await ctx.services();
      const r = await attestOnDemand(services, cliActor(), { source: 'cli' });
      ctx.print(readinessBody(r), readinessLine(r));
      if (!r.ready) ctx.exitCode = 1;
    });
}
