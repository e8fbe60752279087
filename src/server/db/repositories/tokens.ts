// API tokens and their workspace grants (SPEC §11). Verification runs on every request that presents a token the
// cache does not hold, so it stays ONE driver statement (token joined with its grants); creating, listing and
// revoking are cold paths on Prisma Client.
import type { Scope } from '../../model/access';
import type { ApiTokenInfo, AsStored, StoredToken } from '../../domain/tokens/token';
import type { Prisma } from '../prisma';
import type { Sql } from '../types';
import { bool, json, str, strOrNull } from '../values';

export interface NewApiToken {
  id: string;
  name: string;
  secretHash: string;
  scopes: readonly Scope[];
  createdBy: string | null;
  createdAt: string;
  expiresAt: string | null;
}

interface VerifyRow {
  id: unknown;
  name: unknown;
  secret_hash: unknown;
  scopes: unknown;
  revoked: unknown;
  expires_at: unknown;
  workspace_id: unknown;
}

/** Stored scopes are a JSON array of words (the domain keeps those it knows). */
function toScopes(stored: unknown): string[] {
  return json<string[]>(stored);
}

const INFO_SELECT = {
  id: true,
  name: true,
  scopes: true,
  createdBy: true,
  createdAt: true,
  revokedAt: true,
  expiresAt: true,
  lastUsedAt: true,
  grants: { select: { workspaceId: true }, orderBy: { workspaceId: 'asc' } },
} as const;

interface InfoRow {
  id: string;
  name: string;
  scopes: string;
  createdBy: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  grants: Array<{ workspaceId: string }>;
}

function toInfo(r: InfoRow): AsStored<ApiTokenInfo> {
  return {
    id: r.id,
    name: r.name,
    scopes: toScopes(r.scopes),
    workspaceIds: r.grants.map((g) => g.workspaceId),
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    revokedAt: r.revokedAt?.toISOString() ?? null,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  };
}

export class TokenRepository {
  constructor(
    private readonly sql: Sql,
    private readonly prisma: () => Promise<Prisma>,
  ) {}

  /** The per-request read: one statement, one row per grant. Undefined when no token has this id. */
  async findForVerification(id: string): Promise<StoredToken | undefined> {
    const rows = await this.sql.query<VerifyRow>(
      `SELECT t.id, t.name, t.secret_hash, t.scopes, (t.revoked_at IS NOT NULL) AS revoked, t.expires_at, g.workspace_id
         FROM api_tokens t LEFT JOIN api_token_grants g ON g.token_id = t.id WHERE t.id = $1`,
      [id],
    );
    const first = rows[0];
    if (!first) return undefined;
    const workspaceIds = rows.filter((r) => r.workspace_id !== null).map((r) => str(r.workspace_id));
    return {
      verified: {
        id: str(first.id),
        name: str(first.name),
        scopes: toScopes(first.scopes),
        workspaceIds,
        expiresAt: strOrNull(first.expires_at),
      },
      secretHash: str(first.secret_hash),
      revoked: bool(first.revoked),
    };
  }

  /**
   * The token and one grant per workspace, in one transaction. When a workspace does not exist nothing is written
   * and its id is returned instead.
   */
  async insert(token: NewApiToken, workspaceIds: readonly string[]): Promise<{ missingWorkspaceId?: string }> {
    const prisma = await this.prisma();
    return prisma.$transaction(async (tx) => {
      const found = await tx.workspace.findMany({ where: { id: { in: [...workspaceIds] } }, select: { id: true } });
      const missing = workspaceIds.find((id) => !found.some((w) => w.id === id));
      if (missing !== undefined) return { missingWorkspaceId: missing };
      await tx.apiToken.create({
        data: {
          id: token.id,
          name: token.name,
          secretHash: token.secretHash,
          scopes: JSON.stringify(token.scopes),
          createdBy: token.createdBy,
          createdAt: new Date(token.createdAt),
          expiresAt: token.expiresAt === null ? null : new Date(token.expiresAt),
        },
        select: { id: true },
      });
      await tx.apiTokenGrant.createMany({
        data: workspaceIds.map((workspaceId) => ({ tokenId: token.id, workspaceId })),
      });
      return {};
    });
  }

  /**
   * Records when tokens were last used (token-usage.ts flushes, at most once a minute). A time never moves back: two
   * processes flushing out of order keep the later one. On the driver: API-only processes never load Prisma.
   */
  async recordUse(uses: ReadonlyArray<{ id: string; at: string }>): Promise<void> {
    for (const use of uses) {
      await this.sql.run(
        'UPDATE api_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)',
        [use.id, use.at],
      );
    }
  }

  /** Marks the token revoked; false when it does not exist or was already revoked. */
  async revoke(id: string, at: string): Promise<boolean> {
    const prisma = await this.prisma();
    const { count } = await prisma.apiToken.updateMany({
      where: { id, revokedAt: null },
      data: { revokedAt: new Date(at) },
    });
    return count > 0;
  }

  async exists(id: string): Promise<boolean> {
    const prisma = await this.prisma();
    return (await prisma.apiToken.findUnique({ where: { id }, select: { id: true } })) !== null;
  }

  /** One token with its grants, or undefined. */
  async find(id: string): Promise<AsStored<ApiTokenInfo> | undefined> {
    const prisma = await this.prisma();
    const token = await prisma.apiToken.findUnique({ where: { id }, select: INFO_SELECT });
    return token ? toInfo(token) : undefined;
  }

  /** Every token with its grants, newest first. */
  async list(): Promise<Array<AsStored<ApiTokenInfo>>> {
    const prisma = await this.prisma();
    const tokens = await prisma.apiToken.findMany({
      select: INFO_SELECT,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
    });
    return tokens.map(toInfo);
  }
}
