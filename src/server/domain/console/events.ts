// The workspace's newest events (SPEC §9, §13). The release history itself is a list (lists.ts).
import type { Actor } from '../access';
import type { Repositories } from '../../db/store';
import { requireRead } from './rows';

/** The workspace's newest events. */
export async function readEvents(
  store: Pick<Repositories, 'console'>,
  actor: Actor,
  workspaceId: string,
  limit: number,
) {
  requireRead(actor, workspaceId);
  return store.console.recentEvents(workspaceId, limit);
}
