// The `tether` program: its nouns, and runCli, which runs one command line. src/cli/main.ts is the process's entry; a
// caller that runs several command lines in one process (the browser tests' seeding, e2e/support/cli-batch.ts) gives
// runCli its own output and stdin.
import { Command, CommanderError } from 'commander';
import { MigrationError } from '../server/db/schema/migrate';
import { isDomainError } from '../server/domain/errors/domain-error';
import { CliError, createCliContext, processIo, type CliContext, type CliIo } from './context';
import { register as migrate } from './commands/migrate';
import { register as step } from './commands/step';
import { register as token } from './commands/token';
import { register as user } from './commands/user';
import { register as workspace } from './commands/workspace';
import { register as repo } from './commands/repo';
import { register as agentProfile } from './commands/agent-profile';
import { register as worker } from './commands/worker';
import { register as identity } from './commands/identity';

const NOUNS: Array<(program: Command, ctx: CliContext) => void> = [
  migrate,
  workspace,
  step,
  user,
  token,
  repo,
  agentProfile,
  identity,
  worker,
];

export function buildProgram(io: CliIo = processIo): { program: Command; ctx: CliContext } {
  const program = new Command('tether')
    .description(
      'Tether admin: migrations, workspaces, steps, users, API tokens and identity readiness. DATABASE_URL picks the database.',
    )
    .option('--json', 'print results as JSON')
    // Set before the nouns are added, so every subcommand inherits them.
    .exitOverride()
    .showSuggestionAfterError(false);
  const ctx = createCliContext(program, io);
  for (const add of NOUNS) add(program, ctx);
  return { program, ctx };
}

/** One line for the operator: our own errors verbatim, anything else by its first line, never a stack. */
function describe(err: unknown): string {
  if (isDomainError(err) || err instanceof CliError || err instanceof MigrationError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] || 'unexpected error';
}

/** Runs one command line (`argv` as process.argv: the command's words from the third on) and resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const { program, ctx } = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    return ctx.exitCode;
  } catch (err) {
    // Commander has already printed its own message (or the help) when it throws.
    if (err instanceof CommanderError) return err.exitCode;
    process.stderr.write(`error: ${describe(err)}\n`);
    return 1;
  } finally {
    await ctx.close().catch(() => {});
  }
}
