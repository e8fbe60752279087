// The vocabulary of access as it is stored (SPEC §11): a member's role in a workspace, an API token's scopes. What
// each one allows is the domain's (domain/access.ts), and so is dropping a stored word this version does not know;
// the data layer only reads and writes the words.
export type Role = 'viewer' | 'operator' | 'admin';
export type Scope = 'tasks:read' | 'tasks:write' | 'identities:release' | 'admin';
export const SCOPES: readonly Scope[] = ['tasks:read', 'tasks:write', 'identities:release', 'admin'];
export const ROLES: readonly Role[] = ['viewer', 'operator', 'admin'];
