// API tokens for machines (SPEC §11): `tth_<id>_<secret>`, shown once; only sha256(secret) is stored.
// Scopes and workspace grants decide what a token may do (src/server/auth/actor.ts).
import { randomUUID } from 'node:crypto';
import { SCOPES, type Scope } from '../../auth/actor';
import { digest, randomSecret, sameDigest } from '../../auth/secrets';
import type { Db, Sql } from '../../db/types';
import { json, str, strOrNull } from '../../db/values';
import { DomainError } from '../errors/domain-error';
import type { TokenCache } from './token-cache';

export const TOKEN_PREFIX = 'tth_';
const TOKEN_SHAPE = /^tth_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface VerifiedToken {
  id: string;
  name: string;
  scopes: Scope[];
  workspaceIds: string[];
}

export interface ApiTokenInfo extends VerifiedToken {
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface CreateApiTokenInput {
  name: string;
  workspaceIds: readonly string[];
  scopes: readonly string[];
  /** The user or token that made it, for the audit trail. */
  createdBy?: string | null;
}

/** Splits a presented token into id and secret; null when it is not shaped like one of ours. */
export function parseApiToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN_SHAPE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

export function parseScopes(scopes: readonly string[]): Scope[] {
  const unknown = scopes.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length > 0) throw new DomainError('validation_failed', `unknown scope ${unknown.join(', ')} (allowed: ${SCOPES.join(', ')})`);
  if (scopes.length === 0) throw new DomainError('validation_failed', 'a token needs at least one scope');
  return [...new Set(scopes as Scope[])];
}

export async function createApiToken(db: Db, input: CreateApiTokenInput): Promise<{ id: string; token: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError('validation_failed', 'token name must be 1-200 characters');
  const scopes = parseScopes(input.scopes);
  const workspaceIds = [...new Set(input.workspaceIds)];
  if (workspaceIds.length === 0) throw new DomainError('validation_failed', 'a token needs at least one workspace');
  const id = randomUUID();
  const secret = randomSecret();
  await db.transaction(async (tx) => {
    for (const workspaceId of workspaceIds) {
      if (!(await tx.one('SELECT id FROM workspaces WHERE id = $1', [workspaceId]))) throw new DomainError('not_found', `workspace ${workspaceId}`);
    }
    await tx.run('INSERT INTO api_tokens (id, name, secret_hash, scopes, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      id,
      name,
      digest(secret),
      JSON.stringify(scopes),
      input.createdBy ?? null,
      new Date().toISOString(),
    ]);
    for (const workspaceId of workspaceIds) {
      await tx.run('INSERT INTO api_token_grants (token_id, workspace_id) VALUES ($1, $2)', [id, workspaceId]);
    }
  });
  return { id, token: `${TOKEN_PREFIX}${id}_${secret}` };
}

interface TokenRow {
  id: string;
  name: string;
  secret_hash: string;
  scopes: unknown;
  created_by: unknown;
  created_at: unknown;
  revoked_at: unknown;
  workspace_id: string | null;
}

const TOKEN_WITH_GRANTS = `SELECT t.id, t.name, t.secret_hash, t.scopes, t.created_by, t.created_at, t.revoked_at, g.workspace_id
  FROM api_tokens t LEFT JOIN api_token_grants g ON g.token_id = t.id`;

/** Rows of TOKEN_WITH_GRANTS (one per grant) → one record per token, in first-seen order. */
function fold(rows: TokenRow[]): Array<ApiTokenInfo & { secretHash: string }> {
  const byId = new Map<string, ApiTokenInfo & { secretHash: string }>();
  for (const row of rows) {
    let t = byId.get(row.id);
    if (!t) {
      const scopes = json<string[]>(row.scopes).filter((s): s is Scope => SCOPES.includes(s as Scope));
      t = {
        id: row.id,
        name: row.name,
        scopes,
        workspaceIds: [],
        createdBy: strOrNull(row.created_by),
        createdAt: str(row.created_at),
        revokedAt: strOrNull(row.revoked_at),
        secretHash: row.secret_hash,
      };
      byId.set(row.id, t);
    }
    if (row.workspace_id) t.workspaceIds.push(row.workspace_id);
  }
  return [...byId.values()];
}

/**
 * The token a presented bearer value belongs to, or null (unknown, wrong secret, revoked, malformed).
 * At most ONE statement (token joined with its grants), and none on a cache hit (see token-cache.ts).
 */
export async function verifyApiToken(db: Sql, presented: string, tokenCache: TokenCache): Promise<VerifiedToken | null> {
  const parsed = parseApiToken(presented);
  if (!parsed) return null;
  const presentedHash = digest(parsed.secret);
  const cached = tokenCache.get(parsed.id);
  if (cached) return sameDigest(presentedHash, cached.secretHash) ? cached.token : null;
  const epoch = tokenCache.epoch();
  const [token] = fold(await db.query<TokenRow>(`${TOKEN_WITH_GRANTS} WHERE t.id = $1`, [parsed.id]));
  if (!token || token.revokedAt !== null || !sameDigest(presentedHash, token.secretHash)) return null;
  const verified: VerifiedToken = { id: token.id, name: token.name, scopes: token.scopes, workspaceIds: token.workspaceIds };
  tokenCache.set(token.id, token.secretHash, verified, epoch);
  return verified;
}

/**
 * Revokes a token; it stops working on the next request of the process whose `tokenCache` is given (other
 * processes, and the CLI's revoke: within 2 s).
 * Takes `Db`, not a transaction: the cache is invalidated after the write, which must already be committed.
 */
export async function revokeApiToken(db: Db, id: string, tokenCache?: TokenCache): Promise<void> {
  const changed = await db.run('UPDATE api_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [id, new Date().toISOString()]);
  // After the write: drops the entry and (via the epoch) refuses any answer read before the revoke committed.
  tokenCache?.delete(id);
  if (changed === 0 && !(await db.one('SELECT id FROM api_tokens WHERE id = $1', [id]))) throw new DomainError('not_found', `token ${id}`);
}

/** Every token with its grants, newest first. Never includes secrets or their digests. */
export async function listApiTokens(db: Sql): Promise<ApiTokenInfo[]> {
  const rows = await db.query<TokenRow>(`${TOKEN_WITH_GRANTS} ORDER BY t.created_at DESC, t.id, g.workspace_id`);
  return fold(rows).map(({ secretHash: _secretHash, ...info }) => info);
}
