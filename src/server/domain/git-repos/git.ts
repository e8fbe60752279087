// The real `git` binary, run without a shell (arguments are never interpolated into a command line).
import { execFile } from 'node:child_process';
import { childProcessEnv } from '../../config';

export class GitError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, env: childProcessEnv({ GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' }), timeout: 30_000 },
      (err, stdout, stderr) => {
        if (err) reject(new GitError(`git ${args[0]} failed: ${String(stderr).trim() || err.message}`, String(stderr)));
        else resolve(String(stdout).trim());
      },
    );
  });
}

/** The commit a ref points at, or null when the ref does not exist. */
export async function resolveRef(cwd: string, ref: string): Promise<string | null> {
  try {
    return await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    return null;
  }
}

/** Creates `ref` at `commit` only if it does not exist yet (the empty old value makes git check atomically). */
export async function createRef(cwd: string, ref: string, commit: string): Promise<'created' | 'exists'> {
  try {
    await git(cwd, ['update-ref', ref, commit, '']);
    return 'created';
  } catch (err) {
    if ((await resolveRef(cwd, ref)) !== null) return 'exists';
    throw err;
  }
}

/** Deletes `ref` only if it still points at `commit` (git checks the old value atomically). */
export async function deleteRefIfAt(cwd: string, ref: string, commit: string): Promise<boolean> {
  try {
    await git(cwd, ['update-ref', '-d', ref, commit]);
    return true;
  } catch {
    return false;
  }
}
