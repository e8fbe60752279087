// Workspace reads. `visible` is what `visibleWorkspaces(actor)` returns, so callers filter by access in one place.
import type { Store } from '../../db/store';
import type { Workspace } from './workspace';

export async function listWorkspaces(store: Store, visible: 'all' | readonly string[] = 'all'): Promise<Workspace[]> {
  const all = await store.workspaces.list();
  if (visible === 'all') return all;
  const allowed = new Set(visible);
  return all.filter((w) => allowed.has(w.id));
}

export async function getWorkspace(store: Store, id: string): Promise<Workspace | null> {
  return (await store.workspaces.find(id)) ?? null;
}
