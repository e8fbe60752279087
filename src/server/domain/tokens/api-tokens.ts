// API tokens for machines (SPEC §11): `tth_<id>_<secret>`, shown once; only sha256(secret) is stored.
// Scopes and workspace grants decide what a token may do (src/server/domain/access.ts).
import { randomUUID } from 'node:crypto';
import { SCOPES, type Scope } from '../access';
import { digest, randomSecret, sameDigest } from '../../auth/secrets';
import type { Repositories } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import type { TokenCache } from './token-cache';
import type { TokenUsage } from './token-usage';
import type { ApiTokenInfo, AsStored, VerifiedToken } from './token';

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
  /** When it stops working (ISO 8601, in the future); absent or null: never. */
  expiresAt?: string | null;
}

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `--expires-in`: `90m`, `12h`, `30d`, `2w` → the time that long after `now`, as ISO 8601. */
export function expiresIn(duration: string, now = new Date()): string {
  const m = /^(\d{1,6})([mhdw])$/.exec(duration.trim());
  if (!m || Number(m[1]) === 0)
    throw new DomainError(
      'validation_failed',
      `expires in: a positive whole number of m, h, d or w, e.g. 30d (got ${JSON.stringify(duration)})`,
    );
  return checkedExpiry(new Date(now.getTime() + Number(m[1]) * DURATION_UNITS[m[2]!]!).toISOString(), now);
}

/** An expiry as given (`--expires-at`, the console): a date and time that is still to come, as ISO 8601 UTC. */
export function checkedExpiry(raw: string, now = new Date()): string {
  const at = /^\d{4}-\d\d-\d\d(T\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d))?$/.test(raw.trim())
    ? new Date(raw.trim())
    : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    throw new DomainError(
      'validation_failed',
      `expires at: an ISO 8601 date or time, e.g. 2027-01-31 or 2027-01-31T12:00:00Z (got ${JSON.stringify(raw)})`,
    );
  if (at.getTime() <= now.getTime()) throw new DomainError('validation_failed', 'expires at: must be in the future');
  return at.toISOString();
}

/** Whether a token with this expiry is refused at `now`. */
export function isExpired(expiresAt: string | null, now = Date.now()): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= now;
}

/** Splits a presented token into id and secret; null when it is not shaped like one of ours. */
export function parseApiToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN_SHAPE.exec(token);
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/** The stored scope words this version knows; one it does not know grants nothing. */
function knownScopes<T extends { scopes: Scope[] }>(stored: AsStored<T>): T {
  return { ...stored, scopes: stored.scopes.filter((s): s is Scope => SCOPES.includes(s as Scope)) } as T;
}

export function parseScopes(scopes: readonly string[]): Scope[] {
  const unknown = scopes.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length > 0)
    throw new DomainError('validation_failed', `unknown scope ${unknown.join(', ')} (allowed: ${SCOPES.join(', ')})`);
  if (scopes.length === 0) throw new DomainError('validation_failed', 'a token needs at least one scope');
  return [...new Set(scopes as Scope[])];
}

export async function createApiToken(
  store: TokenStore,
  input: CreateApiTokenInput,
): Promise<{ id: string; token: string }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError('validation_failed', 'token name must be 1-200 characters');
  const scopes = parseScopes(input.scopes);
  const workspaceIds = [...new Set(input.workspaceIds)];
  if (workspaceIds.length === 0) throw new DomainError('validation_failed', 'a token needs at least one workspace');
  const expiresAt = input.expiresAt ? checkedExpiry(input.expiresAt) : null;
  const id = randomUUID();
  const secret = randomSecret();
  const { missingWorkspaceId } = await store.tokens.insert(
    {
      id,
      name,
      secretHash: digest(secret),
      scopes,
      createdBy: input.createdBy ?? null,
      createdAt: new Date().toISOString(),
      expiresAt,
    },
    workspaceIds,
  );
  if (missingWorkspaceId !== undefined) throw new DomainError('not_found', `workspace ${missingWorkspaceId}`);
  return { id, token: `${TOKEN_PREFIX}${id}_${secret}` };
}

/**
 * The token a presented bearer value belongs to, or null (unknown, wrong secret, revoked, expired, malformed).
 * At most ONE statement (token joined with its grants), and none on a cache hit (see token-cache.ts): a cached token
 * is kept no longer than its expiry, so an expired token is refused on its first request after it expires. Each
 * success is noted in `usage` (last used, written at most once a minute: token-usage.ts), never written here.
 */
export async function verifyApiToken(
  store: TokenStore,
  presented: string,
  tokenCache: TokenCache,
  usage?: TokenUsage,
): Promise<VerifiedToken | null> {
  const parsed = parseApiToken(presented);
  if (!parsed) return null;
  const presentedHash = digest(parsed.secret);
  const now = Date.now();
  const cached = tokenCache.get(parsed.id, now);
  let verified: VerifiedToken | null;
  if (cached) {
    verified = sameDigest(presentedHash, cached.secretHash) ? cached.token : null;
  } else {
    const epoch = tokenCache.epoch();
    const token = await store.tokens.findForVerification(parsed.id);
    if (
      !token ||
      token.revoked ||
      isExpired(token.verified.expiresAt, now) ||
      !sameDigest(presentedHash, token.secretHash)
    )
      return null;
    verified = knownScopes<VerifiedToken>(token.verified);
    tokenCache.set(verified.id, token.secretHash, verified, epoch, now);
  }
  if (verified) usage?.note(verified.id, now);
  return verified;
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
export async function listApiTokens(store: TokenStore): Promise<ApiTokenInfo[]> {
  return (await store.tokens.list()).map((t) => knownScopes<ApiTokenInfo>(t));
}

/** One token with its grants (never its secret or digest), or undefined. */
export async function findApiToken(store: TokenStore, id: string): Promise<ApiTokenInfo | undefined> {
  const token = await store.tokens.find(id);
  return token && knownScopes<ApiTokenInfo>(token);
}
