// Console sessions (SPEC §11): the digest of the cookie value, its CSRF token and expiry. Reading one runs on
// every cookie-authenticated request, so it stays ONE driver statement (session joined with its user and the
// user's memberships); sign-in and sign-out are cold paths on Prisma Client.
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { bool, str } from '../values';

export interface StoredSession {
  idHash: string;
  userId: string;
  csrfToken: string;
  expiresAt: string;
  createdAt: string;
}

/** A stored session with what authentication needs of its user. Expiry is the caller's to judge. */
export interface SessionWithUser {
  userId: string;
  email: string;
  isAdmin: boolean;
  csrfToken: string;
  expiresAt: string;
  /** Role per workspace as stored (the caller keeps only roles it knows). */
  memberships: Array<{ workspaceId: string; role: string }>;
}

interface SessionRow {
  user_id: unknown;
  email: unknown;
  is_admin: unknown;
  csrf_token: unknown;
  expires_at: unknown;
  workspace_id: unknown;
  role: unknown;
}

export class SessionRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  async insert(s: StoredSession): Promise<void> {
    const prisma = await this.prisma();
    await prisma.session.create({
      data: {
        idHash: s.idHash,
        userId: s.userId,
        csrfToken: s.csrfToken,
        expiresAt: new Date(s.expiresAt),
        createdAt: new Date(s.createdAt),
      },
      select: { idHash: true },
    });
  }

  /** Drops sessions that expired before `at`. */
  async deleteExpired(at: string): Promise<void> {
    const prisma = await this.prisma();
    await prisma.session.deleteMany({ where: { expiresAt: { lt: new Date(at) } } });
  }

  async delete(idHash: string): Promise<void> {
    const prisma = await this.prisma();
    await prisma.session.deleteMany({ where: { idHash } });
  }

  /** The per-request read: one statement, one row per membership. Undefined when no session has this digest. */
  async findWithUser(idHash: string): Promise<SessionWithUser | undefined> {
    const rows = await this.sql.query<SessionRow>(
      `SELECT s.user_id, u.email, u.is_admin, s.csrf_token, s.expires_at, m.workspace_id, m.role
         FROM sessions s
         JOIN users u ON u.id = s.user_id
         LEFT JOIN memberships m ON m.user_id = s.user_id
        WHERE s.id_hash = $1`,
      [idHash],
    );
    const first = rows[0];
    if (!first) return undefined;
    return {
      userId: str(first.user_id),
      email: str(first.email),
      isAdmin: bool(first.is_admin),
      csrfToken: str(first.csrf_token),
      expiresAt: str(first.expires_at),
      memberships: rows
        .filter((r) => r.workspace_id !== null)
        .map((r) => ({ workspaceId: str(r.workspace_id), role: str(r.role) })),
    };
  }
}
