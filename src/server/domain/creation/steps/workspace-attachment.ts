// SPEC §5 `workspace_attachment`: the task's working folder `<root>/<identifier>`.
import { mkdir, readdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { str } from '../../../db/values';
import type { Evidence, StepKindImpl } from './types';

async function isDir(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

export const workspaceAttachment: StepKindImpl = {
  async execute(ctx) {
    const path =
      typeof ctx.prior?.path === 'string' ? ctx.prior.path : join(str(ctx.params.root), await ctx.identifier());
    await ctx.note({ path });
    // `recursive` makes a re-run after a crash a no-op, and creates the root on a fresh machine.
    await mkdir(path, { recursive: true });
    return { path };
  },

  async verify(_ctx, evidence) {
    const path = evidence?.path;
    return typeof path === 'string' && (await isDir(path)) ? { path } : null;
  },

  async compensate(_ctx, evidence: Evidence | null) {
    const path = evidence?.path;
    if (typeof path !== 'string' || !(await isDir(path))) return;
    // "Remove the folder if empty of user files": a folder someone already put work in is left alone.
    if ((await readdir(path)).length > 0) return;
    await rmdir(path).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT' && err.code !== 'ENOTEMPTY') throw err;
    });
  },
};
