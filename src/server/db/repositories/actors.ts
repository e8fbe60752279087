// Who an actor id is, for people (SPEC §13: the console says who did it). Operations, revisions and releases keep the
// id of whoever acted (SPEC §11): a user (a person in the console), an API token, or the server itself (recovery,
// cleanup, the CLI). Ids are looked up in one read per kind; a token is named even after it was revoked.
import type { ConsoleActor } from '../../domain/console/rows';
import type { Prisma } from '../prisma';

/** The runtime's own actors: what each id prefix means (runtime/recovery.ts, creation/cleanup.ts, cli/context.ts). */
function systemActor(id: string): ConsoleActor | undefined {
  if (id === 'system') return { id, kind: 'system', label: 'Tether (system)' };
  if (id.startsWith('cli:')) return { id, kind: 'system', label: `CLI (${id.slice(4)})` };
  return undefined;
}

export async function labelActors(
  prisma: Prisma,
  actorIds: readonly (string | null)[],
): Promise<Map<string, ConsoleActor>> {
  const ids = [...new Set(actorIds.filter((id): id is string => id !== null))];
  const found = new Map<string, ConsoleActor>();
  for (const id of ids) {
    const system = systemActor(id);
    if (system) found.set(id, system);
  }
  const rest = ids.filter((id) => !found.has(id));
  if (rest.length === 0) return found;
  const [users, tokens] = await Promise.all([
    prisma.user.findMany({ where: { id: { in: rest } }, select: { id: true, email: true, name: true } }),
    prisma.apiToken.findMany({ where: { id: { in: rest } }, select: { id: true, name: true, revokedAt: true } }),
  ]);
  for (const u of users)
    found.set(u.id, { id: u.id, kind: 'user', label: u.name ? `${u.name} (${u.email})` : u.email });
  for (const t of tokens)
    found.set(t.id, { id: t.id, kind: 'token', label: `token “${t.name}”${t.revokedAt ? ' (revoked)' : ''}` });
  return found;
}
