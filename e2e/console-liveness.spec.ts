// SPEC §13: "The live indicator says when it is reconnecting or offline, and a list whose source is unreachable keeps
// its last rows, marked stale." The defects: the Live indicator vanished when the server went away and never came
// back; with the server down the list on screen was replaced by an error box; with every console request answering
// 500 the Overview said "network error" while its Server panel said "Ready / database up"; an open release dialog kept
// showing a holder "preparing" after it was released elsewhere. The browser goes offline through Chromium's own network
// emulation; the API fails through the server's `console_read` failpoint (real 500s).
import {
  api,
  armFailpoint,
  createTask,
  expect,
  expectAccessible,
  makeApiToken,
  releaseFailpoint,
  screenshot,
  type Seed,
  seedWorkspace,
  signIn,
  test,
} from './support/console';

let seed: Seed;
let releaser: string;
test.beforeAll(() => {
  seed = seedWorkspace('LV');
  releaser = makeApiToken(`releaser-${seed.prefix}`, [seed.workspaceId], ['identities:release']);
});
test.afterEach(async () => releaseFailpoint('console_read'));

test('offline: the indicator says so with the last update, the list keeps its rows marked stale; back online it is live again', async ({
  page,
  context,
}, testInfo) => {
  const task = await createTask(seed, `live-offline-${Date.now()}`, 'Kept while offline');
  await signIn(page, seed.operator.email, `/tasks?ws=${seed.workspaceId}`);
  const indicator = page.locator('.console-header__live').getByRole('status');
  await expect(indicator).toHaveText('Live');
  const line = page.getByRole('row', { name: new RegExp(`${task.identifier}\\b`) });
  await expect(line).toBeVisible();

  await context.setOffline(true);
  await expect(indicator).toContainText('Offline');
  await expect(indicator).toContainText('last update');
  // The rows stay, marked as not up to date.
  await expect(line).toBeVisible();
  await expect(page.getByText('Not up to date.').first()).toBeVisible();
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'offline-list-kept');

  await context.setOffline(false);
  await expect(indicator).toHaveText('Live', { timeout: 20_000 });
  await expect(page.getByText('Not up to date.')).toHaveCount(0);
  // And it still follows the truth: a task made now appears by itself.
  const later = await createTask(seed, `live-back-${Date.now()}`, 'After coming back');
  await expect(page.getByRole('row', { name: new RegExp(`${later.identifier}\\b`) })).toBeVisible({ timeout: 10_000 });
});

test('every console request answering 500: the Overview keeps its counts marked stale and its Server panel says the API fails', async ({
  page,
}, testInfo) => {
  await signIn(page, seed.operator.email, `/?ws=${seed.workspaceId}`);
  await expect(page.getByRole('list', { name: 'Counts' })).toBeVisible();
  await expect(page.getByTestId('health')).toContainText('Ready');

  await armFailpoint({ name: 'console_read', action: 'error' });
  // The pulse fails within a second; the page's own reads fail as they refetch.
  await expect(page.getByTestId('health')).toContainText('Console API failing', { timeout: 10_000 });
  await expect(page.getByTestId('health')).toContainText('The server answered HTTP 500');
  await expect(page.getByTestId('health')).not.toContainText('Ready');
  // A task made now sends an event: the page refetches its counts, and that read fails too. The counts already on
  // screen stay, marked as not up to date — no error box in their place.
  const refetched = page.waitForResponse(
    (r) => r.url().includes('/api/trpc/') && r.url().includes('console.overview') && r.status() !== 200,
  );
  await createTask(seed, `while-failing-${Date.now()}`, 'Made while the API fails');
  await refetched;
  const stale = page.getByRole('main').getByRole('status').filter({ hasText: 'Not up to date.' }).first();
  await expect(stale).toBeVisible();
  await expect(stale).toContainText('The server answered HTTP 500');
  await expect(page.getByRole('list', { name: 'Counts' })).toBeVisible();
  await expect(page.getByRole('main').getByRole('alert')).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'api-failing-overview');

  // A page opened while it fails says so in place of rows it never had, with the server's status, not "network error".
  await page.goto(`/operations?ws=${seed.workspaceId}`);
  await expect(page.getByRole('main').getByRole('alert')).toContainText('The server answered HTTP 500');
  await expect(page.getByRole('main').getByRole('alert')).not.toContainText('network error');

  await releaseFailpoint('console_read');
  await page.goto(`/?ws=${seed.workspaceId}`);
  await expect(page.getByTestId('health')).toContainText('Ready', { timeout: 15_000 });
});

test('the release dialog follows its holder: released elsewhere while it is open, it says so', async ({
  page,
}, testInfo) => {
  const externalId = `follow-dialog-${Date.now()}`;
  const task = await createTask(seed, externalId, 'Released elsewhere');
  await signIn(page, seed.operator.email, `/tasks/${task.id}`);
  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Release external identity' });
  await expect(dialog).toContainText('Settled');
  await expect(dialog.getByTestId('holder-changed')).toHaveCount(0);

  const r = await api(
    'DELETE',
    `/workspaces/${seed.workspaceId}/tasks/by-external-id?external_id=${encodeURIComponent(externalId)}`,
    releaser,
    undefined,
    { 'idempotency-key': crypto.randomUUID() },
  );
  expect(r.status).toBe(204);
  const changed = dialog.getByTestId('holder-changed');
  await expect(changed).toContainText('Released elsewhere: nothing holds', { timeout: 5_000 });
  await expect(changed).toContainText(`by token “releaser-${seed.prefix}”`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'release-dialog-followed');
  // Releasing now changes nothing, and says so.
  await dialog.getByLabel('Type the external id exactly to confirm').fill(externalId);
  await dialog.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(dialog.locator('.dialog__result')).toContainText('Nothing holds it.');
});
