// Console users and their workspace memberships (SPEC §11): cold paths (sign-in, admin pages, CLI) on Prisma
// Client — except `any()`, which every server start asks (first-run setup) and which stays one driver statement so
// that a process serving only the API never loads Prisma Client (db/prisma/). A taken email surfaces as the
// unique violation of uniq_users_email; the domain names it.
import type { Role } from '../../domain/access';
import type { Member, User } from '../../domain/users/user';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';

const USER_SELECT = { id: true, email: true, name: true, isAdmin: true, createdAt: true } as const;

interface UserRow {
  id: string;
  email: string;
  name: string | null;
  isAdmin: boolean;
  createdAt: Date;
}

function toUser(r: UserRow): User {
  return { id: r.id, email: r.email, name: r.name, isAdmin: r.isAdmin, createdAt: r.createdAt.toISOString() };
}

export type SetMembershipResult = 'set' | 'no_user' | 'no_workspace';

export class UserRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  /** Whether anyone can sign in yet (first-run setup; asked at every server start, so on the driver). */
  async any(): Promise<boolean> {
    return (await this.sql.one('SELECT 1 AS one FROM users LIMIT 1')) !== undefined;
  }

  /** `email` as stored (lower-cased). */
  async findByEmail(email: string): Promise<User | undefined> {
    const prisma = await this.prisma();
    const row = await prisma.user.findUnique({ where: { email }, select: USER_SELECT });
    return row ? toUser(row) : undefined;
  }

  /** The user and their password digest (null: no password set), for sign-in only. */
  async findCredentials(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const prisma = await this.prisma();
    const row = await prisma.user.findUnique({ where: { email }, select: { ...USER_SELECT, passwordHash: true } });
    return row ? { user: toUser(row), passwordHash: row.passwordHash } : undefined;
  }

  /**
   * The user and a membership with `role` in each workspace, in one transaction. When a workspace does not exist
   * nothing is written and its id is returned instead.
   */
  async insert(
    user: User,
    passwordHash: string | null,
    role: Role,
    workspaceIds: readonly string[],
  ): Promise<{ missingWorkspaceId?: string }> {
    const prisma = await this.prisma();
    const createdAt = new Date(user.createdAt);
    return prisma.$transaction(async (tx) => {
      const found = await tx.workspace.findMany({ where: { id: { in: [...workspaceIds] } }, select: { id: true } });
      const missing = workspaceIds.find((id) => !found.some((w) => w.id === id));
      if (missing !== undefined) return { missingWorkspaceId: missing };
      await tx.user.create({
        data: { id: user.id, email: user.email, name: user.name, passwordHash, isAdmin: user.isAdmin, createdAt },
        select: { id: true },
      });
      if (workspaceIds.length > 0) {
        await tx.membership.createMany({
          data: workspaceIds.map((workspaceId) => ({ userId: user.id, workspaceId, role, createdAt })),
        });
      }
      return {};
    });
  }

  /** Gives the user `role` in the workspace, replacing any previous one; says which of the two does not exist. */
  async setMembership(userId: string, workspaceId: string, role: Role, at: string): Promise<SetMembershipResult> {
    const prisma = await this.prisma();
    return prisma.$transaction(async (tx) => {
      if (!(await tx.user.findUnique({ where: { id: userId }, select: { id: true } }))) return 'no_user';
      if (!(await tx.workspace.findUnique({ where: { id: workspaceId }, select: { id: true } }))) return 'no_workspace';
      await tx.membership.upsert({
        where: { userId_workspaceId: { userId, workspaceId } },
        create: { userId, workspaceId, role, createdAt: new Date(at) },
        update: { role },
        select: { role: true },
      });
      return 'set';
    });
  }

  async removeMembership(userId: string, workspaceId: string): Promise<void> {
    const prisma = await this.prisma();
    await prisma.membership.deleteMany({ where: { userId, workspaceId } });
  }

  /** The workspace's members by email. */
  async listMembers(workspaceId: string): Promise<Member[]> {
    const prisma = await this.prisma();
    const memberships = await prisma.membership.findMany({
      where: { workspaceId },
      select: { userId: true, role: true, user: { select: { email: true } } },
      orderBy: { user: { email: 'asc' } },
    });
    return memberships.map((m) => ({ userId: m.userId, email: m.user.email, role: m.role as Role }));
  }
}
