// `tether`, the admin command: the process's entry (the program is ./program.ts; one file per noun under ./commands,
// adding a noun is one line in its NOUNS). Runs as
// `npm run tether -- …`, `npx tsx src/cli/main.ts …`, or the `tether` bin. Errors are one line on stderr and a non-zero
// exit; the database is always closed before exiting.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runCli } from './program';

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
