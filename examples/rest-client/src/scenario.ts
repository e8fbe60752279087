// The identity's life as an integration sees it over REST (SPEC §3, §7): every call and every result typed by the
// generated paths — a field the document does not name does not compile.
import type { TetherRest } from './client';
import type { components } from './tether-api';

type Task = components['schemas']['CreateTaskResult'];

/** What a caller should say about a create (SPEC §3): read both flags before saying anything. */
export function describeCreate(task: Task): string {
  if (!task.deduplicated) return 'created';
  // Another create holds the identity and may still be running: never a reason to release and retry.
  return task.creation_complete ? 'already there' : 'already there, still being created';
}

export async function runScenario(tether: TetherRest, workspaceId: string, ticket: string) {
  const external_id = `jira:${ticket}`;
  const body = { workspace_id: workspaceId, external_id, title: `Fix ${ticket}` };

  const first = await tether.POST('/tasks', { body });
  if (!first.data) throw new Error(`create failed: ${first.response.status} ${first.error?.error}`);
  // A redelivery: same identity, a drifted title. Nothing new is created; the same task comes back unchanged.
  const retry = await tether.POST('/tasks', { body: { ...body, title: 'A drifted title' } });
  if (!retry.data) throw new Error(`retry failed: ${retry.error?.error}`);

  const where = { path: { workspace_id: workspaceId }, query: { external_id } };
  const holder = await tether.GET('/workspaces/{workspace_id}/tasks/by-external-id', { params: where });
  if (!holder.data) throw new Error(`lookup failed: ${holder.error?.error}`);

  // One key for this release, reused when the request is retried (here: replayed on purpose).
  const key = crypto.randomUUID();
  const release = () =>
    tether.DELETE('/workspaces/{workspace_id}/tasks/by-external-id', {
      params: { ...where, header: { 'Idempotency-Key': key } },
    });
  const released = await release();
  const replayed = await release();

  const after = await tether.GET('/workspaces/{workspace_id}/tasks/by-external-id', { params: where });
  const kept = await tether.GET('/tasks/{id}', { params: { path: { id: first.data.id } } });

  return {
    first: { id: first.data.id, report: describeCreate(first.data), external_id: first.data.external_id ?? null },
    retry: { id: retry.data.id, report: describeCreate(retry.data), title: retry.data.title },
    holder: { id: holder.data.id, creation_complete: holder.data.creation_complete },
    release: { status: released.response.status, replay: replayed.response.status },
    after: { status: after.response.status, error: after.error?.error ?? null },
    kept: { id: kept.data?.id ?? null, external_id: kept.data?.external_id ?? null },
  };
}
