// Who is acting, and what they may do (SPEC §11). Built once per request by the surface's auth step;
// the domain only ever asks the questions below. The stored words (roles, scopes) are the model's.
import type { Role, Scope } from '../model/access';

export { ROLES, SCOPES, type Role, type Scope } from '../model/access';

export type Permission = 'read' | 'write' | 'release' | 'admin';

export interface Actor {
  kind: 'user' | 'token' | 'system';
  id: string;
  /** Display label for audit records (email or token name). Never a secret. */
  label: string;
  /** A user with the instance-wide admin flag, or the system itself: every workspace. */
  global: boolean;
  /** Users: role per workspace. */
  roles: ReadonlyMap<string, Role>;
  /** Tokens: granted workspaces and scopes. */
  grants: ReadonlySet<string>;
  scopes: ReadonlySet<Scope>;
}

const ROLE_ALLOWS: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(['read']),
  operator: new Set(['read', 'write', 'release']),
  admin: new Set(['read', 'write', 'release', 'admin']),
};

const SCOPE_ALLOWS: Record<Scope, ReadonlySet<Permission>> = {
  'tasks:read': new Set(['read']),
  'tasks:write': new Set(['read', 'write']),
  'identities:release': new Set(['read', 'release']),
  admin: new Set(['read', 'write', 'release', 'admin']),
};

export function can(actor: Actor, workspaceId: string, permission: Permission): boolean {
  if (actor.global) return true;
  if (actor.kind === 'user') {
    const role = actor.roles.get(workspaceId);
    return role !== undefined && ROLE_ALLOWS[role].has(permission);
  }
  if (!actor.grants.has(workspaceId)) return false;
  for (const scope of actor.scopes) if (SCOPE_ALLOWS[scope].has(permission)) return true;
  return false;
}

/** Workspaces the actor can see, or `'all'` for a global actor. */
export function visibleWorkspaces(actor: Actor): 'all' | string[] {
  if (actor.global) return 'all';
  return actor.kind === 'user' ? [...actor.roles.keys()] : [...actor.grants];
}

export const SYSTEM_ACTOR: Actor = {
  kind: 'system',
  id: 'system',
  label: 'system',
  global: true,
  roles: new Map(),
  grants: new Set(),
  scopes: new Set(),
};
