// The route a request is counted and logged under: a small, fixed set of names, so an attacker cannot grow the metrics
// by inventing paths, and never the raw path or query (they carry ids and external ids). REST refines its label to the
// pattern it matched (rest/router.ts); tRPC is labelled by procedure when the procedure exists.
import { appRouter } from '../api/root';
import type { Surface } from '../observability/request-scope';

const PROCEDURES: ReadonlySet<string> = new Set(Object.keys(appRouter._def.procedures));

const SURFACES: Record<string, Surface> = {
  '/api/v1': 'rest',
  '/api/trpc': 'trpc',
  '/api/mcp': 'mcp',
  '/api/health': 'health',
  '/api/metrics': 'metrics',
};

export function routeLabel(path: string, prefix: string | undefined): { route: string; surface: Surface } {
  if (prefix === '/api/trpc') return { route: trpcLabel(path), surface: 'trpc' };
  if (prefix) return { route: prefix, surface: SURFACES[prefix] ?? 'other' };
  if (path === '/api' || path.startsWith('/api/')) return { route: '/api/unknown', surface: 'other' };
  return { route: path.startsWith('/_next/') ? 'page-asset' : 'page', surface: 'page' };
}

/** `/api/trpc/task.create` → itself; a batch (`a,b`) → `/api/trpc/batch`; anything else → `/api/trpc/unknown`. */
function trpcLabel(path: string): string {
  const name = path.slice('/api/trpc/'.length);
  if (name.includes(',')) return '/api/trpc/batch';
  return PROCEDURES.has(name) ? `/api/trpc/${name}` : '/api/trpc/unknown';
}
