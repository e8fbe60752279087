// Several `tether --json` command lines in one process, for the browser tests' seeding (`cliBatch` in
// e2e/support/console.ts): each line runs through the CLI's own program (src/cli/program.ts: its parsing, checks and
// services, on the database DATABASE_URL names) as if `tether` had been started for it, without paying a process start
// per line. Reads a JSON array of commands on stdin — `{ args, stdin? }`, where an argument is a string or
// `{ from, key }`, the field `key` of an earlier command's answer — and prints the answers as a JSON array. The first
// command that fails stops the batch: its error on stderr, exit code 1.
import { readFileSync } from 'node:fs';
import { runCli } from '../../src/cli/program';

export type BatchArg = string | { from: number; key: string };
export interface BatchCommand {
  args: BatchArg[];
  /** What the command reads on stdin (--password-stdin). */
  stdin?: string;
}

async function run(commands: BatchCommand[]): Promise<number> {
  const answers: Array<Record<string, unknown>> = [];
  for (const command of commands) {
    const args = command.args.map((a) => (typeof a === 'string' ? a : String(answers[a.from]![a.key])));
    let out = '';
    const code = await runCli(['node', 'tether', '--json', ...args], {
      write: (text) => void (out += text),
      readStdin: () => Promise.resolve(command.stdin ?? ''),
    });
    if (code !== 0) {
      process.stderr.write(`tether ${args.join(' ')} exited with ${code}\n`);
      return 1;
    }
    answers.push(JSON.parse(out) as Record<string, unknown>);
  }
  process.stdout.write(JSON.stringify(answers));
  return 0;
}

const code = await run(JSON.parse(readFileSync(0, 'utf8')) as BatchCommand[]);
process.stdout.write('', () => process.exit(code));
