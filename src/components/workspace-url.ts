// SPEC §13: "Every console URL names its workspace, so a shared link shows the same thing to everyone who may see it."
// The convention, everywhere: the query parameter `ws=<workspace id>`. Pure helpers, shared by the session gate (which
// reads it) and the console's links (which write it).

export const WORKSPACE_PARAM = 'ws';

/** Pages about one task or operation: their workspace is the entity's, which the page names once it has loaded. */
export const ENTITY_PAGE = /^\/(tasks|operations)\/[^/]+$/;

/** `href` naming `workspaceId` (an href that names one already keeps it: a link into another workspace). */
export function withWorkspace(href: string, workspaceId: string | null | undefined): string {
  if (!workspaceId || href.startsWith('#') || /^[a-z]+:/i.test(href)) return href;
  const hashAt = href.indexOf('#');
  const path = hashAt === -1 ? href : href.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : href.slice(hashAt);
  const q = path.indexOf('?');
  const params = new URLSearchParams(q === -1 ? '' : path.slice(q + 1));
  if (params.has(WORKSPACE_PARAM)) return href;
  // The workspace first: it is what every console address has in common.
  const search = new URLSearchParams([[WORKSPACE_PARAM, workspaceId], ...params]).toString();
  return `${q === -1 ? path : path.slice(0, q)}?${search}${hash}`;
}

/**
 * Where the workspace picker goes: the same page in the other workspace. A list page starts over (its filters and
 * pages belong to the workspace it showed); the identity page and Find keep the id they look up, so the same id can
 * be looked up in another workspace; a task or operation goes back to its list.
 */
export function switchWorkspaceHref(pathname: string, params: URLSearchParams, workspaceId: string): string {
  const entity = ENTITY_PAGE.exec(pathname);
  if (entity) return withWorkspace(`/${entity[1]}`, workspaceId);
  const keep = new URLSearchParams();
  if (pathname === '/identity' && params.get('id') !== null) keep.set('id', params.get('id')!);
  if (pathname === '/tasks' && params.get('find') !== null) keep.set('find', params.get('find')!);
  const q = keep.toString();
  return withWorkspace(q ? `${pathname}?${q}` : pathname, workspaceId);
}
