// `tether token create|list|revoke` (SPEC §11: stored hashed, shown once).
import type { Command } from 'commander';
import { SCOPES } from '../../server/auth/actor';
import { createApiToken, listApiTokens, parseScopes, revokeApiToken } from '../../server/domain/tokens/api-tokens';
import { collect, table, type CliContext } from '../context';

export function register(program: Command, ctx: CliContext): void {
  const token = program.command('token').description('manage API tokens');

  token
    .command('create')
    .description('create an API token and print it once')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--workspace <id>', 'workspace to grant (repeatable)', collect)
    .requiredOption('--scope <scopes>', `comma-separated: ${SCOPES.join(', ')} (repeatable)`, collect)
    .action(async (opts: { name: string; workspace: string[]; scope: string[] }) => {
      const scopes = parseScopes(opts.scope.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean));
      const created = await createApiToken(await ctx.store(), { name: opts.name, workspaceIds: opts.workspace, scopes });
      // Human output: the token alone on stdout (so `$(tether token create …)` captures it), the note on stderr.
      if (!program.opts().json) process.stderr.write(`created token ${created.id}; copy it now, it is not shown again\n`);
      ctx.print({ id: created.id, token: created.token, name: opts.name.trim(), scopes, workspace_ids: [...new Set(opts.workspace)] }, created.token);
    });

  token
    .command('list')
    .description('list API tokens (never their secrets)')
    .action(async () => {
      const tokens = await listApiTokens(await ctx.store());
      ctx.print(
        tokens.map((t) => ({
          id: t.id,
          name: t.name,
          scopes: t.scopes,
          workspace_ids: t.workspaceIds,
          created_by: t.createdBy,
          created_at: t.createdAt,
          revoked_at: t.revokedAt,
        })),
        tokens.length
          ? table([['ID', 'NAME', 'SCOPES', 'STATUS'], ...tokens.map((t) => [t.id, t.name, t.scopes.join(','), t.revokedAt ? `revoked ${t.revokedAt}` : 'active'])])
          : 'no tokens',
      );
    });

  token
    .command('revoke')
    .description('revoke an API token (other server processes stop accepting it within 2 s)')
    .argument('<id>', 'token id')
    .action(async (id: string) => {
      await revokeApiToken(await ctx.store(), id);
      ctx.print({ id, revoked: true }, `revoked token ${id}`);
    });
}
