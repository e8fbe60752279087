// `tether worker`: the recovery runtime (SPEC §6) as a standalone process, for deployments that want workers
// apart from the servers. It coordinates with every server through the database; stop it with SIGINT/SIGTERM.
import type { Command } from 'commander';
import { startRecoveryRuntime } from '../../server/runtime';
import type { CliContext } from '../context';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('worker')
    .description(
      'run the creation recovery runtime and agent dispatcher until stopped (TETHER_LEASE_MS, TETHER_RECOVERY_POLL_MS)',
    )
    .action(async () => {
      const services = await ctx.services(); // refuses an unmigrated database
      const stop = startRecoveryRuntime(services);
      process.stderr.write(
        `tether worker ${services.instanceId}: lease ${services.leaseMs} ms, poll ${services.config.recovery.pollMs} ms\n`,
      );
      await new Promise<void>((resolve) => {
        const keepAlive = setInterval(() => {}, 1 << 30);
        const shutdown = () => {
          clearInterval(keepAlive);
          resolve();
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      });
      await stop();
      await services.agentRunners.close();
    });
}
