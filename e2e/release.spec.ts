// The release dialog, exactly per SPEC §13 / §7: refuses until the identity is typed exactly, releases, the stored row
// and release operation match, and a retry after a lost answer re-uses the one Idempotency-Key. "Nothing holds it"
// reaches the dialog as a NOT_FOUND error (SPEC §10), not as data; the dialog still says each result in plain words —
// released, nothing holds it, creation completing, key conflict — each checked here against what the server stored.
import type { Page } from '@playwright/test';
import {
  api,
  armFailpoint,
  baseUrl,
  cli,
  createTask,
  expect,
  expectAccessible,
  releaseFailpoint,
  row,
  rows,
  screenshot,
  signIn,
  test,
  useSession,
} from './support/console';

test('the release dialog refuses until the identity is typed exactly, then releases and records it', async ({
  page,
  seed,
}, testInfo) => {
  const externalId = `Jira:PROJ-${Date.now()}`;
  const task = await createTask(seed, externalId, 'Release me');
  const before = row<{ revision: number }>('SELECT revision FROM tasks WHERE id = ?', task.id)!;

  await signIn(page, seed.operator.email, `/tasks/${task.id}`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'task-detail');
  const trigger = page.getByRole('button', { name: 'Release identity…' });
  await trigger.click();
  const dialog = page.getByRole('dialog', { name: 'Release external identity' });
  await expect(dialog).toContainText(task.identifier);
  await expect(dialog).toContainText('Settled');
  await expect(dialog).toContainText('completed');
  await expect(dialog.getByRole('note', { name: 'Warning' })).toHaveCount(0);
  const confirm = dialog.getByLabel('Type the external id exactly to confirm');
  await expect(confirm).toBeFocused();
  const release = dialog.getByRole('button', { name: 'Release', exact: true });

  await expect(release).toBeDisabled();
  await confirm.fill(externalId.toLowerCase());
  await expect(release).toBeDisabled();
  await confirm.fill(`${externalId} `);
  await expect(release).toBeDisabled();
  await confirm.fill(externalId);
  await expect(release).toBeEnabled();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'release-dialog');
  const key = (await dialog.getByTestId('idempotency-key').textContent())!;
  expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  await release.click();
  await expect(dialog.getByRole('status')).toContainText('Released.');

  const stored = row<{ external_id: string | null; external_id_settled_at: string | null; revision: number }>(
    'SELECT external_id, external_id_settled_at, revision FROM tasks WHERE id = ?',
    task.id,
  )!;
  expect(stored).toEqual({ external_id: null, external_id_settled_at: null, revision: before.revision + 1 });
  // The workspace is shared with other specs (seedWorkspace): count this identity's releases only.
  const ops = rows<Record<string, unknown>>(
    'SELECT * FROM release_operations WHERE workspace_id = ? AND external_id = ?',
    seed.workspaceId,
    externalId,
  );
  expect(ops).toHaveLength(1);
  expect(ops[0]).toMatchObject({
    idempotency_key: key,
    external_id: externalId,
    holder_task_id: task.id,
    actor_id: seed.operator.id,
    source: 'console',
    result_status: 204,
  });
  expect(
    rows(
      'SELECT event_type AS type FROM task_revisions WHERE task_id = ? AND revision = ?',
      task.id,
      before.revision + 1,
    ),
  ).toEqual([{ type: 'task.updated' }]);

  // Closing returns focus to the button that opened the dialog; the page now shows no identity.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByText('Holds no external id')).toBeVisible();

  // Release history lists it with who, result and key.
  await page.goto('/releases');
  const line = page.getByRole('row', { name: new RegExp(key) });
  await expect(line).toContainText(seed.operator.email);
  await expect(line).toContainText('released');
  await expect(line).toContainText(task.identifier);
});

test('a release retried after its answer was lost re-uses the key and releases once', async ({ page, seed }) => {
  const externalId = `retry-${Date.now()}`;
  const task = await createTask(seed, externalId, 'Retry me');
  const before = row<{ revision: number }>('SELECT revision FROM tasks WHERE id = ?', task.id)!;
  await signIn(page, seed.operator.email, `/tasks/${task.id}`);

  // The first request reaches the server (which releases) but the browser never sees the answer.
  const sentKeys: string[] = [];
  let attempts = 0;
  await page.route(/\/api\/trpc\/task\.releaseExternalId/, async (route) => {
    const body = route.request().postDataJSON() as Record<string, { idempotency_key: string }>;
    sentKeys.push(body['0']?.idempotency_key ?? (body as unknown as { idempotency_key: string }).idempotency_key);
    attempts++;
    if (attempts === 1) {
      await route.fetch();
      await route.abort('connectionreset');
    } else {
      await route.continue();
    }
  });

  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Release external identity' });
  await dialog.getByLabel('Type the external id exactly to confirm').fill(externalId);
  await dialog.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(dialog.getByRole('status')).toContainText('No answer from the server');
  await expect(dialog.getByText('(reused for this retry)')).toBeVisible();

  await dialog.getByRole('button', { name: 'Retry release' }).click();
  await expect(dialog.getByRole('status')).toContainText('Released.');
  await expect(dialog.getByRole('status')).toContainText('nothing was released twice');

  expect(sentKeys).toHaveLength(2);
  expect(sentKeys[0]).toBe(sentKeys[1]);
  expect(rows('SELECT id FROM release_operations WHERE idempotency_key = ?', sentKeys[0])).toHaveLength(1);
  expect(row<{ revision: number }>('SELECT revision FROM tasks WHERE id = ?', task.id)!.revision).toBe(
    before.revision + 1,
  );
  expect(
    rows("SELECT event_id AS id FROM task_revisions WHERE task_id = ? AND event_type = 'task.updated'", task.id),
  ).toHaveLength(1);
});

/** Opens the task's release dialog and types the identity; returns the dialog and its Idempotency-Key. */
async function openReleaseDialog(page: Page, taskId: string, externalId: string) {
  await page.goto(`/tasks/${taskId}`);
  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Release external identity' });
  await dialog.getByLabel('Type the external id exactly to confirm').fill(externalId);
  const key = (await dialog.getByTestId('idempotency-key').textContent())!;
  return { dialog, key };
}

test('nothing holds it any more: the NOT_FOUND answer reads "Nothing holds it", and the 404 is stored for the key', async ({
  page,
  seed,
}) => {
  const externalId = `gone-${Date.now()}`;
  const task = await createTask(seed, externalId, 'Deleted meanwhile');
  await useSession(page, seed.operator.email);
  const { dialog, key } = await openReleaseDialog(page, task.id, externalId);
  // While the dialog is open, the task is deleted (SPEC §8: that frees the identity).
  expect((await api('DELETE', `/tasks/${task.id}`, seed.token)).status).toBe(204);

  await dialog.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(dialog.getByRole('status')).toContainText('Nothing holds it.');
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeVisible();
  expect(rows('SELECT result_status, holder_task_id FROM release_operations WHERE idempotency_key = ?', key)).toEqual([
    { result_status: 404, holder_task_id: null },
  ]);
});

test('a holder whose create is completing: "Creation completing — try again", nothing changes, then the retry releases', async ({
  page,
  seed,
}) => {
  const externalId = `completing-${Date.now()}`;
  // Hold a create between Complete's two phases (SPEC §4.3): the task is `completing`, so release must refuse.
  await armFailpoint({ name: 'complete_between_phases', action: 'pause', match: externalId });
  const pending = api('POST', '/tasks', seed.token, {
    workspace_id: seed.workspaceId,
    external_id: externalId,
    title: 'Completing',
  });
  try {
    await expect
      .poll(
        () =>
          row<{ creation_state: string }>('SELECT creation_state FROM tasks WHERE external_id = ?', externalId)
            ?.creation_state,
      )
      .toBe('completing');
    const taskId = row<{ id: string }>('SELECT id FROM tasks WHERE external_id = ?', externalId)!.id;
    await useSession(page, seed.operator.email);
    const { dialog, key } = await openReleaseDialog(page, taskId, externalId);
    await dialog.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(dialog.getByRole('status')).toContainText('Creation completing — try again.');
    expect(row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', taskId)!.external_id).toBe(
      externalId,
    );
    expect(rows('SELECT id FROM release_operations WHERE idempotency_key = ?', key)).toEqual([]);

    await releaseFailpoint('complete_between_phases');
    expect((await pending).status).toBe(200);
    await dialog.getByRole('button', { name: 'Retry release' }).click();
    await expect(dialog.getByRole('status')).toContainText('Released.');
    expect(
      row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', taskId)!.external_id,
    ).toBeNull();
    expect(rows('SELECT result_status FROM release_operations WHERE idempotency_key = ?', key)).toEqual([
      { result_status: 204 },
    ]);
  } finally {
    await releaseFailpoint('complete_between_phases');
  }
});

test('the dialog\'s key already used for another request: "Key conflict", nothing released', async ({ page, seed }) => {
  const externalId = `conflict-${Date.now()}`;
  const task = await createTask(seed, externalId, 'Keep my identity');
  await useSession(page, seed.operator.email);
  const { dialog, key } = await openReleaseDialog(page, task.id, externalId);
  // Someone else's release (another identity, another actor) used the same key first.
  const releaser = cli<{ token: string }>([
    'token',
    'create',
    '--name',
    `e2e releaser ${Date.now()}`,
    '--workspace',
    seed.workspaceId,
    '--scope',
    'identities:release',
  ]).token;
  const other = await fetch(
    `${baseUrl()}/api/v1/workspaces/${seed.workspaceId}/tasks/by-external-id?external_id=other-${Date.now()}`,
    {
      method: 'DELETE',
      headers: { authorization: `Bearer ${releaser}`, 'idempotency-key': key },
    },
  );
  expect(other.status).toBe(404);

  await dialog.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(dialog.getByRole('status')).toContainText('Key conflict.');
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeVisible();
  expect(row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', task.id)!.external_id).toBe(
    externalId,
  );
  expect(rows('SELECT id FROM release_operations WHERE idempotency_key = ?', key)).toHaveLength(1);
});
