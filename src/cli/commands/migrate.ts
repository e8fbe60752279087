// `tether migrate`: apply pending migrations, then attest the catalog (SPEC §12).
import type { Command } from 'commander';
import { attest } from '../../server/db/schema/attest';
import { migrate } from '../../server/db/schema/migrate';
import { CliError, type CliContext } from '../context';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('migrate')
    .description('apply pending database migrations and attest the schema')
    .action(async () => {
      const { driver } = await ctx.store({ raw: true });
      const result = await migrate(driver);
      const attestation = await attest(driver);
      ctx.print(
        { applied: result.applied, version: result.version, ready: attestation.ready, reasons: attestation.reasons },
        [
          result.applied.length ? result.applied.map((f) => `applied ${f}`).join('\n') : 'nothing to apply',
          `schema version ${result.version}`,
          `attestation: ${attestation.ready ? 'passed' : 'FAILED'}`,
        ].join('\n'),
      );
      if (!attestation.ready) throw new CliError(`schema attestation failed: ${attestation.reasons.join('; ')}`);
    });
}
