// `tether user create`.
import { InvalidArgumentError, type Command } from 'commander';
import { ROLES, type Role } from '../../server/domain/access';
import { createUser } from '../../server/domain/users/create-user';
import { toUserBody } from '../../server/domain/users/user';
import { collect, CliError, type CliContext } from '../context';

function role(value: string): Role {
  if (!ROLES.includes(value as Role)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return value as Role;
}

export function register(program: Command, ctx: CliContext): void {
  const user = program.command('user').description('manage console users');

  user
    .command('create')
    .description('create a user; admin without --workspace is an instance-wide admin')
    .requiredOption('--email <email>', 'sign-in email (stored lower-case)')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`, role)
    .option('--workspace <id>', 'workspace to give the role in (repeatable)', collect)
    .option('--password-stdin', 'read the password from stdin (one trailing newline is dropped)')
    .action(async (opts: { email: string; role: Role; workspace?: string[]; passwordStdin?: boolean }) => {
      let password: string | null = null;
      if (opts.passwordStdin) {
        password = (await ctx.readStdin()).replace(/\r?\n$/, '');
        if (!password) throw new CliError('no password on stdin');
      }
      const created = await createUser(await ctx.store(), {
        email: opts.email,
        role: opts.role,
        workspaceIds: opts.workspace ?? [],
        password,
      });
      const where = created.isAdmin
        ? 'instance-wide admin'
        : `${opts.role} in ${created.memberships.length} workspace(s)`;
      ctx.print(
        {
          ...toUserBody(created),
          memberships: created.memberships.map((m) => ({ workspace_id: m.workspaceId, role: m.role })),
        },
        `created user ${created.email} ${created.id} (${where})`,
      );
    });
}
