// Running the real `tether` CLI (or any program) as a child process in a test: its exit code, stdout and stderr.
import { spawn } from 'node:child_process';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` with `env`, feeding it `input` on stdin, and resolves once it has exited. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** `tether <args>` from the sources, against the database at `databaseUrl`. */
export function tether(databaseUrl: string, args: string[], input = ''): Promise<Run> {
  return run('npx', ['tsx', 'src/cli/main.ts', ...args], { ...process.env, DATABASE_URL: databaseUrl }, input);
}
