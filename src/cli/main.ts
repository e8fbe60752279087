// `tether`, the admin command. One file per noun under ./commands; adding a noun is one line in NOUNS below. Runs as
// `npm run tether -- …`, `npx tsx src/cli/main.ts …`, or the `tether` bin. Errors are one line on stderr and a non-zero
// exit; the database is always closed before exiting.
import { Command, CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MigrationError } from '../server/db/schema/migrate';
import { isDomainError } from '../server/domain/errors/domain-error';
import { CliError, createCliContext, type CliContext } from './context';
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

export function buildProgram(): { program: Command; ctx: CliContext } {
  const program = new Command('tether')
    .description(
      'Tether admin: migrations, workspaces, steps, users, API tokens and identity readiness. DATABASE_URL picks the database.',
    )
    .option('--json', 'print results as JSON')
    // Set before the nouns are added, so every subcommand inherits them.
    .exitOverride()
    .showSuggestionAfterError(false);
  const ctx = createCliContext(program);
  for (const add of NOUNS) add(program, ctx);
  return { program, ctx };
}

/** One line for the operator: our own errors verbatim, anything else by its first line, never a stack. */
function describe(err: unknown): string {
  if (isDomainError(err) || err instanceof CliError || err instanceof MigrationError) return err.message;
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0] || 'unexpected error';
}

/** Runs one command line and resolves to the exit code. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const { program, ctx } = buildProgram();
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

/** Runs and exits once stdout has drained (a pg pool or stdin must not keep the process alive). */
export async function main(argv: readonly string[] = process.argv): Promise<never> {
  const code = await runCli(argv);
  return new Promise<never>(() => process.stdout.write('', () => process.exit(code)));
}

function isEntry(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntry()) void main();
