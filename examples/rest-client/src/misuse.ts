// Calls the generated types must refuse. Every `@ts-expect-error` below must meet an error, or this file fails to
// type-check: so each misuse is caught by the document's types, not by luck.
import type { TetherRest } from './client';

export async function misuse(tether: TetherRest, ws: string): Promise<void> {
  // @ts-expect-error — external_id is a string, not a number
  await tether.POST('/tasks', { body: { workspace_id: ws, external_id: 123, title: 'T' } });

  // @ts-expect-error — a create names workspace_id or parent_id
  await tether.POST('/tasks', { body: { external_id: 'jira:1', title: 'Nowhere' } });

  // @ts-expect-error — a release needs its Idempotency-Key header
  await tether.DELETE('/workspaces/{workspace_id}/tasks/by-external-id', { params: { path: { workspace_id: ws }, query: { external_id: 'jira:1' } } });

  // @ts-expect-error — a lookup needs the external_id
  await tether.GET('/workspaces/{workspace_id}/tasks/by-external-id', { params: { path: { workspace_id: ws }, query: {} } });

  // @ts-expect-error — there is no such path (by_external_id)
  await tether.GET('/workspaces/{workspace_id}/tasks/by_external_id', { params: { path: { workspace_id: ws } } });

  // @ts-expect-error — a page's limit is a number
  await tether.GET('/workspaces/{workspace_id}/tasks', { params: { path: { workspace_id: ws }, query: { limit: '10' } } });

  const found = await tether.GET('/workspaces/{workspace_id}/tasks/by-external-id', { params: { path: { workspace_id: ws }, query: { external_id: 'x' } } });
  // @ts-expect-error — `deduplicated` is a create's answer only (SPEC §3), never a lookup's
  void found.data?.deduplicated;

  const task = await tether.GET('/tasks/{id}', { params: { path: { id: 'task-id' } } });
  // @ts-expect-error — `creation_complete` appears only on create and lookup answers (SPEC §3)
  void task.data?.creation_complete;
}
