// API tokens for machines (SPEC §11): `tth_<id>_<secret>`, shown once; only sha256(secret) is stored.
// Scopes and workspace grants decide what a token may do (src/server/auth/actor.ts).
import { randomUUID } from 'node:crypto';
import { SCOPES, type Scope } from '../../auth/actor';
import { digest, randomSecret, sameDigest } from '../../auth/secrets';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import type { TokenCache } from './token-cache';
import type { ApiTokenInfo, VerifiedToken } from './token';

export type { ApiTokenInfo, VerifiedToken } from './token';

export const TOKEN_PREFIX = 'tth_';
const TOKEN_SHAPE = /^tth_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

type TokenStore = Pick<Repositories, 'tokens'>;

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

export async function createApiToken(store: TokenStore, input: CreateApiTokenInput): Promise<{ id: string; token: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError('validation_failed', 'token name must be 1-200 characters');
  const scopes = parseScopes(input.scopes);
  const workspaceIds = [...new Set(input.workspaceIds)];
  if (workspaceIds.length === 0) throw new DomainError('validation_failed', 'a token needs at least one workspace');
  const id = randomUUID();
  const secret = randomSecret();
  const { missingWorkspaceId } = await store.tokens.insert(
    { id, name, secretHash: digest(secret), scopes, createdBy: input.createdBy ?? null, createdAt: new Date().toISOString() },
    workspaceIds,
  );
  if (missingWorkspaceId !== undefined) throw new DomainError('not_found', `workspace ${missingWorkspaceId}`);
  return { id, token: `${TOKEN_PREFIX}${id}_${secret}` };
}

/**
 * The token a presented bearer value belongs to, or null (unknown, wrong secret, revoked, malformed).
 * At most ONE statement (token joined with its grants), and none on a cache hit (see token-cache.ts).
 */
export async function verifyApiToken(store: TokenStore, presented: string, tokenCache: TokenCache): Promise<VerifiedToken | null> {
  const parsed = parseApiToken(presented);
  if (!parsed) return null;
  const presentedHash = digest(parsed.secret);
  const cached = tokenCache.get(parsed.id);
  if (cached) return sameDigest(presentedHash, cached.secretHash) ? cached.token : null;
  const epoch = tokenCache.epoch();
  const token = await store.tokens.findForVerification(parsed.id);
  if (!token || token.revoked || !sameDigest(presentedHash, token.secretHash)) return null;
  tokenCache.set(token.verified.id, token.secretHash, token.verified, epoch);
  return token.verified;
}

/**
 * Revokes a token; it stops working on the next request of the process whose `tokenCache` is given (other
 * processes, and the CLI's revoke: within 2 s).
 * Not inside a transaction: the cache is invalidated after the write, which must already be committed.
 */
export async function revokeApiToken(store: TokenStore, id: string, tokenCache?: TokenCache): Promise<void> {
  const changed = await store.tokens.revoke(id, new Date().toISOString());
  // After the write: drops the entry and (via the epoch) refuses any answer read before the revoke committed.
  tokenCache?.delete(id);
  if (!changed && !(await store.tokens.exists(id))) throw new DomainError('not_found', `token ${id}`);
}

/** Every token with its grants, newest first. Never includes secrets or their digests. */
export function listApiTokens(store: TokenStore): Promise<ApiTokenInfo[]> {
  return store.tokens.list();
}

/** One token with its grants (never its secret or digest), or undefined. */
export function findApiToken(store: TokenStore, id: string): Promise<ApiTokenInfo | undefined> {
  return store.tokens.find(id);
}
