// Workspace reads. `visible` is what `visibleWorkspaces(actor)` returns, so callers filter by access in one place.
import type { Sql } from '../../db/types';
import { rowToWorkspace, WORKSPACE_COLUMNS, type Workspace } from './workspace';

export async function listWorkspaces(db: Sql, visible: 'all' | readonly string[] = 'all'): Promise<Workspace[]> {
  const rows = await db.query(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces ORDER BY prefix`);
  const all = rows.map(rowToWorkspace);
  if (visible === 'all') return all;
  const allowed = new Set(visible);
  return all.filter((w) => allowed.has(w.id));
}

export async function getWorkspace(db: Sql, id: string): Promise<Workspace | null> {
  const row = await db.one(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = $1`, [id]);
  return row ? rowToWorkspace(row) : null;
}
