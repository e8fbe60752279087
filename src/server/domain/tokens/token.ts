// API tokens as the domain sees them (SPEC §11). A leaf module: the token cache, the repository and the token
// functions all speak these types without importing each other.
import type { Scope } from '../access';

/** What a verified bearer token may do: its grants and scopes. */
export interface VerifiedToken {
  id: string;
  name: string;
  scopes: Scope[];
  workspaceIds: string[];
  /** From this time on the token is refused like a revoked one; null never expires. */
  expiresAt: string | null;
}

/** A token as listed to an admin: never its secret or the secret's digest. */
export interface ApiTokenInfo extends VerifiedToken {
  createdBy: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** When a server process last saw it (written at most once a minute: token-usage.ts); null never seen. */
  lastUsedAt: string | null;
}

/**
 * A token as the data layer reads it: its scopes are the words stored, which may include one this version does not
 * know (the domain keeps only those it knows: `knownScopes`, api-tokens.ts).
 */
export type AsStored<T extends { scopes: Scope[] }> = Omit<T, 'scopes'> & { scopes: string[] };

/** A token as stored, for verification: the digest of its secret (never the secret) and whether it was revoked. */
export interface StoredToken {
  verified: AsStored<VerifiedToken>;
  secretHash: string;
  revoked: boolean;
}
