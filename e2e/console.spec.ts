// The operator console's pages in real Chromium (SPEC §13): find-by-external-id, unsettled identities with their
// operation, the operation's step timeline, overview, releases and settings — each checked with axe and kept as a
// screenshot under test-results/.
import {
  api,
  armFailpoint,
  baseUrl,
  chooseWorkspace,
  createTask,
  expect,
  expectAccessible,
  releaseFailpoint,
  row,
  screenshot,
  signIn,
  test,
} from './support/console';

test('find by external id answers for a held, an archived and a free identity, showing the normalized value', async ({
  page,
  seed,
}, testInfo) => {
  const held = await createTask(seed, `held-${Date.now()}`, 'Held task');
  const archived = await createTask(seed, `archived-${Date.now()}`, 'Archived task');
  expect((await api('POST', `/tasks/${archived.id}/archive`, seed.token)).status).toBe(200);

  await signIn(page, seed.operator.email, '/tasks');
  const find = page.getByRole('search', { name: 'Find by external id' });
  const result = page.getByRole('region', { name: 'Find by external id' }).getByRole('status');

  // Held: surrounding white space is trimmed (SPEC §2.1) and the searched value shown back.
  await find.getByLabel('External id (exact)').fill(`  ${held.external_id}\u00a0`);
  await find.getByRole('button', { name: 'Find' }).click();
  await expect(result).toContainText(`Searched for ${held.external_id}`);
  await expect(result).toContainText('after trimming');
  await expect(result.getByRole('link', { name: held.identifier })).toBeVisible();
  await expect(result.getByText('settled', { exact: true })).toBeVisible();

  // Archived: still holds its identity (SPEC §8).
  await find.getByLabel('External id (exact)').fill(archived.external_id!);
  await find.getByRole('button', { name: 'Find' }).click();
  await expect(result.getByRole('link', { name: archived.identifier })).toBeVisible();
  await expect(result.getByText('archived', { exact: true })).toBeVisible();

  // Free, and exact: a different case is a different identity.
  await find.getByLabel('External id (exact)').fill(held.external_id!.toUpperCase());
  await find.getByRole('button', { name: 'Find' }).click();
  await expect(result).toContainText('Nothing holds this external id');
  // No holder to link to; only the id's history.
  await expect(result.getByRole('link')).toHaveText(['History of this id']);

  // The table lists both, with badges.
  const table = page.getByRole('table');
  await expect(table.getByRole('row', { name: new RegExp(archived.identifier) })).toContainText('archived');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'tasks');
});

test('the tasks table sorts by a column and pages', async ({ page, seed }) => {
  await signIn(page, seed.operator.email, '/tasks');
  const table = page.getByRole('table');
  await expect(table.getByRole('row').nth(1)).toBeVisible();
  const header = table.getByRole('columnheader', { name: /Task/ });
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  await header.getByRole('button').click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  await expect(table.getByRole('row').nth(1)).toContainText(`${seed.prefix}-1`);
  await expect(page.getByRole('navigation', { name: 'Pagination' })).toContainText('tasks match');
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
});

test('an unsettled create held open by a failpoint appears with its operation, then settles', async ({
  page,
  seed,
}, testInfo) => {
  const externalId = `unsettled-${Date.now()}`;
  await armFailpoint({ name: 'after_begin', action: 'pause', match: externalId });
  const pending = api('POST', '/tasks', seed.token, {
    workspace_id: seed.workspaceId,
    external_id: externalId,
    title: 'Paused create',
  });
  try {
    await expect.poll(() => row('SELECT id FROM tasks WHERE external_id = ?', externalId)).toBeTruthy();
    const op = row<{ id: string; state: string }>(
      'SELECT id, state FROM creation_operations WHERE external_id = ?',
      externalId,
    )!;
    expect(op.state).toBe('preparing');

    await signIn(page, seed.operator.email, '/unsettled');
    await expect(page.getByRole('heading', { name: 'What unsettled means' })).toBeVisible();
    const line = page.getByRole('row', { name: new RegExp(externalId) });
    await expect(line).toContainText('preparing');
    // Which step it is on, not a count of succeeded steps (the create is paused before its step starts).
    await expect(line).toContainText('step 1/1 workspace_attachment not started');
    await expect(line.getByRole('link', { name: op.id.slice(0, 8) })).toBeVisible();
    await expectAccessible(page);
    await screenshot(page, testInfo, 'unsettled');

    // Its operation's step timeline: the one planned step has not run yet.
    await line.getByRole('link', { name: op.id.slice(0, 8) }).click();
    await expect(page.getByRole('heading', { name: `Creation operation ${op.id.slice(0, 8)}` })).toBeVisible();
    await expect(page.getByRole('listitem', { name: 'Step 1: workspace_attachment, planned' })).toBeVisible();

    // The task page warns in the release dialog that a create may still be running.
    await page.goto(`/tasks/${row<{ id: string }>('SELECT id FROM tasks WHERE external_id = ?', externalId)!.id}`);
    await page.getByRole('button', { name: 'Release identity…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Release external identity' });
    await expect(dialog.getByRole('note', { name: 'Warning' })).toContainText('a create may still be running');
    await expect(dialog).toContainText('created, identity lost');
    await expectAccessible(page);
    await screenshot(page, testInfo, 'release-dialog-unsettled');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toHaveCount(0);
  } finally {
    await releaseFailpoint('after_begin');
  }
  expect((await pending).status).toBe(200);
  await expect(page.getByRole('row', { name: new RegExp(externalId) })).toHaveCount(0);
});

test('the operation detail page shows each step state of a finished create', async ({ page, seed }, testInfo) => {
  const task = await createTask(seed, `steps-${Date.now()}`);
  const op = row<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = ?', task.id)!;
  await signIn(page, seed.operator.email, '/operations?state=completed');
  await expect(page.getByRole('combobox', { name: 'State' })).toHaveValue('completed');
  await page.getByRole('link', { name: op.id.slice(0, 8) }).click();
  await expect(page.getByRole('heading', { name: `Creation operation ${op.id.slice(0, 8)}` })).toBeVisible();
  const step = page.getByRole('listitem', { name: 'Step 1: workspace_attachment, succeeded' });
  await expect(step).toContainText('1 attempt');
  await step.getByText('Evidence').click();
  await expect(step.locator('pre').first()).toBeVisible();
  expect(
    row<{ state: string }>('SELECT state FROM creation_steps WHERE operation_id = ? AND step_index = 0', op.id)!.state,
  ).toBe('succeeded');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'operation-detail');
  await page.goto('/operations');
  await expectAccessible(page);
  await screenshot(page, testInfo, 'operations');
});

test('the overview, releases and settings pages render for an admin without accessibility violations', async ({
  page,
  seed,
}, testInfo) => {
  await createTask(seed, `overview-${Date.now()}`);
  await signIn(page, seed.admin.email);
  await chooseWorkspace(page, seed.workspaceId);
  await expect(page.getByRole('list', { name: 'Counts' })).toContainText('tasks');
  await expect(page.getByRole('heading', { name: 'Creates by outcome' })).toBeVisible();
  await expect(page.getByRole('img', { name: /Creates per hour/ })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'overview');

  await page.goto('/releases');
  await expect(page.getByRole('heading', { name: 'Releases' })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'releases');

  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: 'API tokens' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Workflow steps' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'settings');

  // Small width: the same page stays usable (tables stack, nothing overflows the viewport).
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/tasks');
  await expect(page.getByRole('table')).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'tasks-small');
});

test('an admin creates an API token that is shown once, and revokes it', async ({ page, seed }) => {
  await signIn(page, seed.admin.email);
  await chooseWorkspace(page, seed.workspaceId);
  await page.goto('/settings');
  const form = page.getByRole('form', { name: 'Create token' });
  await form.getByLabel('Token name').fill('console token');
  await form.getByRole('button', { name: 'Create token' }).click();
  const token = await page.getByTestId('new-token').textContent();
  expect(token).toMatch(/^tth_/);
  // It works, and the database keeps only its digest.
  const res = await fetch(`${baseUrl()}/api/v1/workspaces/${seed.workspaceId}/tasks`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  expect(
    row<{ n: number }>('SELECT COUNT(*) AS n FROM api_tokens WHERE secret_hash LIKE ?', `%${token!.slice(-20)}%`)!.n,
  ).toBe(0);

  page.once('dialog', (d) => void d.accept());
  await page.getByRole('button', { name: 'Revoke console token' }).click();
  await expect(page.getByRole('row', { name: /console token/ })).toContainText('revoked');
  expect(
    row<{ revoked_at: string | null }>("SELECT revoked_at FROM api_tokens WHERE name = 'console token'")!.revoked_at,
  ).not.toBeNull();
});

test('an admin creates a token that expires, and the list says when it expires and that it was never used (SPEC §11)', async ({
  page,
  seed,
}) => {
  await signIn(page, seed.admin.email);
  await chooseWorkspace(page, seed.workspaceId);
  await page.goto('/settings');
  const name = `expiring ${Date.now()}`;
  const form = page.getByRole('form', { name: 'Create token' });
  await form.getByLabel('Token name').fill(name);
  await form.getByLabel('Expires').selectOption({ label: 'In 30 days' });
  await form.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token')).toHaveText(/^tth_/);
  const tokenRow = page.getByRole('row', { name: new RegExp(name) });
  // The console's short relative time (src/components/time.tsx): `in 30 d`, beside the absolute date.
  await expect(tokenRow).toContainText('· in 30 d');
  await expect(tokenRow).toContainText('never');
  const stored = row<{ expires_at: string; last_used_at: string | null }>(
    'SELECT expires_at, last_used_at FROM api_tokens WHERE name = ?',
    name,
  )!;
  expect(Math.abs(Date.parse(stored.expires_at) - (Date.now() + 30 * 86_400_000))).toBeLessThan(5 * 60_000);
  expect(stored.last_used_at).toBeNull();
});
