// `tether token create|list|revoke` (SPEC §11: stored hashed, shown once).
import type { Command } from 'commander';
import { SCOPES } from '../../server/domain/access';
import { DomainError } from '../../server/domain/errors/domain-error';
import {
  checkedExpiry,
  createApiToken,
  expiresIn,
  isExpired,
  listApiTokens,
  parseScopes,
  revokeApiToken,
  type ApiTokenInfo,
} from '../../server/domain/tokens/api-tokens';
import { collect, table, type CliContext } from '../context';

/** `--expires-in` or `--expires-at` (not both) as an ISO time; neither: the token never expires. */
function expiryOf(opts: { expiresIn?: string; expiresAt?: string }): string | null {
  if (opts.expiresIn !== undefined && opts.expiresAt !== undefined)
    throw new DomainError('validation_failed', 'give --expires-in or --expires-at, not both');
  if (opts.expiresIn !== undefined) return expiresIn(opts.expiresIn);
  return opts.expiresAt !== undefined ? checkedExpiry(opts.expiresAt) : null;
}

function statusOf(t: ApiTokenInfo): string {
  if (t.revokedAt) return `revoked ${t.revokedAt}`;
  return isExpired(t.expiresAt) ? 'expired' : 'active';
}

export function register(program: Command, ctx: CliContext): void {
  const token = program.command('token').description('manage API tokens');

  token
    .command('create')
    .description('create an API token and print it once')
    .requiredOption('--name <name>', 'what the token is for')
    .requiredOption('--workspace <id>', 'workspace to grant (repeatable)', collect)
    .requiredOption('--scope <scopes>', `comma-separated: ${SCOPES.join(', ')} (repeatable)`, collect)
    .option('--expires-in <duration>', 'stop working after this long: 90m, 12h, 30d or 2w (default: never)')
    .option(
      '--expires-at <time>',
      'stop working at this ISO 8601 time: 2027-01-31 or 2027-01-31T12:00:00Z (default: never)',
    )
    .action(
      async (opts: { name: string; workspace: string[]; scope: string[]; expiresIn?: string; expiresAt?: string }) => {
        const scopes = parseScopes(
          opts.scope
            .flatMap((s) => s.split(','))
            .map((s) => s.trim())
            .filter(Boolean),
        );
        const expiresAt = expiryOf(opts);
        const created = await createApiToken(await ctx.store(), {
          name: opts.name,
          workspaceIds: opts.workspace,
          scopes,
          expiresAt,
        });
        // Human output: the token alone on stdout (so `$(tether token create …)` captures it), the note on stderr.
        if (!program.opts().json)
          process.stderr.write(`created token ${created.id}; copy it now, it is not shown again\n`);
        ctx.print(
          {
            id: created.id,
            token: created.token,
            name: opts.name.trim(),
            scopes,
            workspace_ids: [...new Set(opts.workspace)],
            expires_at: expiresAt,
          },
          created.token,
        );
      },
    );

  token
    .command('list')
    .description(
      'list API tokens (never their secrets), with their expiry and when they were last used (to about a minute)',
    )
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
          expires_at: t.expiresAt,
          last_used_at: t.lastUsedAt,
          status: t.revokedAt ? 'revoked' : isExpired(t.expiresAt) ? 'expired' : 'active',
        })),
        tokens.length
          ? table([
              ['ID', 'NAME', 'SCOPES', 'EXPIRES', 'LAST USED', 'STATUS'],
              ...tokens.map((t) => [
                t.id,
                t.name,
                t.scopes.join(','),
                t.expiresAt ?? 'never',
                t.lastUsedAt ?? 'never',
                statusOf(t),
              ]),
            ])
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
