// Calls a typed client must not be able to write (SPEC §10: "a typed client's misuse fails to compile"). Every
// `@ts-expect-error` below must meet an error, or this file fails to type-check: so each misuse is caught.
import { isTetherError, type RouterInputs, type TetherClient, type TetherErrorCode } from 'tether/client';

export async function misuse(tether: TetherClient, ws: string): Promise<void> {
  // @ts-expect-error — external_id is a string, not a number
  await tether.task.create.mutate({ workspace_id: ws, external_id: 123, title: 'T' });

  // @ts-expect-error — external_id is a string on lookup too
  await tether.task.byExternalId.query({ workspace_id: ws, external_id: 123 });

  // @ts-expect-error — the idempotency key is a UUID string, not a number
  await tether.task.releaseExternalId.mutate({ workspace_id: ws, external_id: 'jira:1', idempotency_key: 42 });

  // @ts-expect-error — a lookup names its workspace
  await tether.task.byExternalId.query({ external_id: 'jira:1' });

  // @ts-expect-error — a release names its workspace
  await tether.task.releaseExternalId.mutate({ external_id: 'jira:1', idempotency_key: crypto.randomUUID() });

  // @ts-expect-error — a create names workspace_id or parent_id
  await tether.task.create.mutate({ external_id: 'jira:1', title: 'Nowhere' });

  // @ts-expect-error — a patch has a schema: not a number
  await tether.task.update.mutate({ id: 'task-id', patch: 42 });

  // @ts-expect-error — nor an unknown field's wrong type
  await tether.task.update.mutate({ id: 'task-id', patch: { title: 7 } });

  // @ts-expect-error — there is no procedure task.byExternalID (misspelled)
  await tether.task.byExternalID.query({ workspace_id: ws, external_id: 'jira:1' });

  try {
    await tether.task.get.query({ id: 'task-id' });
  } catch (err) {
    // @ts-expect-error — 'task_not_fund' is not a domain code (misspelled)
    if (isTetherError(err, 'task_not_fund')) return;
  }

  // @ts-expect-error — not one of the known codes either
  const code: TetherErrorCode = 'creation_complting';
  void code;

  const task = await tether.task.get.query({ id: 'task-id' });
  // @ts-expect-error — an ordinary task read carries no creation_complete (SPEC §3: create and lookup only)
  void task.creation_complete;
  // @ts-expect-error — nor `deduplicated`, which only a create answers
  void task.deduplicated;

  const released = await tether.task.releaseExternalId.mutate({ workspace_id: ws, external_id: 'jira:1', idempotency_key: crypto.randomUUID() });
  // @ts-expect-error — a release result is data, never an HTTP status
  void released.status;

  // @ts-expect-error — inputs are exact: a create's external_id cannot be a number in RouterInputs either
  const input: RouterInputs['task']['create'] = { workspace_id: ws, external_id: 1 };
  void input;
}
