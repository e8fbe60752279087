// People who sign in to the console (SPEC §11). A user is either an instance-wide admin (`users.is_admin`)
// or holds a role per workspace through memberships.
import type { Role } from '../access';
import { DomainError } from '../errors/domain-error';

export interface User {
  id: string;
  email: string;
  name: string | null;
  isAdmin: boolean;
  createdAt: string;
}

/** A user's role in one workspace, as the workspace's admin page lists it. */
export interface Member {
  userId: string;
  email: string;
  role: Role;
}

export function toUserBody(u: User) {
  return { id: u.id, email: u.email, name: u.name, is_admin: u.isAdmin, created_at: u.createdAt };
}

/** Emails are compared case-insensitively by storing them lower-cased (uniq_users_email then does the rest). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(email))
    throw new DomainError('validation_failed', `not an email address: ${raw.trim().slice(0, 80)}`);
  return email;
}
