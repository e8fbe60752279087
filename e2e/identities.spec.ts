// SPEC §13: browsing and trusting external ids in the console. Each way this has gone wrong has a test that catches it
// — a U+202E id that garbled the page and could not be typed, a zero-width space that could not be typed, NFC/NFD
// spellings with no hint, a double-click that released twice and said so confusingly, focus left on the dialog
// container — and each capability: browse state in the URL (reload), release from Find and from Unsettled, an
// identity's history after release and re-create. Axe runs on every page touched; screenshots go to test-results/.
import type { Page } from '@playwright/test';
import {
  api,
  armFailpoint,
  createTask,
  expect,
  expectAccessible,
  makeSeed,
  releaseFailpoint,
  row,
  rows,
  screenshot,
  type Seed,
  signIn,
  test,
} from './support/console';

let seed: Seed;
// A workspace of its own: other specs count the releases of the shared one.
test.beforeAll(() => {
  seed = makeSeed('ID');
});

const stamp = () => `${Date.now()}${Math.random().toString(36).slice(2, 5)}`;

/** The one element that shows an id, and what the reader's eye gets from it. */
async function idElement(page: Page, scope = page.locator('body')) {
  const el = scope.getByTestId('extid-value').first();
  const facts = await el.evaluate((e) => ({
    tag: e.tagName,
    bidi: getComputedStyle(e).unicodeBidi,
    text: e.textContent ?? '',
  }));
  return { el, ...facts };
}

function dialogOf(page: Page) {
  return page.getByRole('dialog', { name: 'Release external identity' });
}

test('a U+202E id renders isolated with its escape, Find for the shown text finds it, and typing the shown text releases it', async ({
  page,
}, testInfo) => {
  const id = `rtl:\u202Eevil-${stamp()}`;
  const shown = id.replace('\u202E', '⟦U+202E⟧');
  const task = await createTask(seed, id, 'Spoofed');

  await signIn(
    page,
    seed.operator.email,
    `/tasks?ws=${seed.workspaceId}&q=${encodeURIComponent('rtl:')}&sort=external_id&dir=asc`,
  );
  const line = page.getByRole('row', { name: new RegExp(task.identifier) });
  await expect(line).toContainText(shown);
  const fact = await idElement(page, line);
  expect(fact).toMatchObject({ tag: 'BDI', bidi: 'isolate', text: shown });
  expect(fact.text).not.toContain('\u202E');
  await expect(line).toContainText('hidden characters shown as');
  // Copy puts the real value on the clipboard, not what is shown.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await line.getByRole('button', { name: `Copy external id ${shown}` }).click();
  await expect(line).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(id);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'browse-rtl');

  // Find for exactly what is shown.
  const find = page.getByRole('search', { name: 'Find by external id' });
  await find.getByLabel('External id (exact)').fill(shown);
  await find.getByRole('button', { name: 'Find' }).click();
  const result = page.getByRole('region', { name: 'Find by external id' }).getByRole('status');
  await expect(result.getByRole('link', { name: task.identifier })).toBeVisible();
  await expect(result).toContainText('read from its escapes');

  // Release straight from the Find result, typing the shown text.
  await page.getByRole('button', { name: `Release ${task.identifier}’s id…` }).click();
  const dialog = dialogOf(page);
  await expect(dialog.getByTestId('extid-value').first()).toHaveText(shown);
  const confirm = dialog.getByLabel('Type the external id exactly to confirm');
  const release = dialog.getByRole('button', { name: 'Release', exact: true });
  await confirm.fill(shown);
  await expect(release).toBeEnabled();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'release-dialog-rtl');
  await release.click();
  await expect(dialog.getByRole('status')).toContainText('Released.');
  expect(row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', task.id)).toEqual({
    external_id: null,
  });
  // The real value was released, not the text typed.
  expect(rows('SELECT external_id FROM release_operations WHERE holder_task_id = ?', task.id)).toEqual([
    { external_id: id },
  ]);
  await dialog.getByRole('button', { name: 'Close' }).click();
  // Find now says it was released, and by whom.
  await expect(result).toContainText('Nothing holds this external id');
  await expect(result).toContainText(`by ${seed.operator.email} from ${task.identifier}`);
});

test('a zero-width-space id shows its escape and is released by typing the shown text', async ({ page }, testInfo) => {
  const id = `zw\u200Bspace-${stamp()}`;
  const shown = id.replace('\u200B', '⟦U+200B⟧');
  const task = await createTask(seed, id, 'Zero width');
  await signIn(page, seed.operator.email, `/tasks/${task.id}`);
  const identity = page.getByRole('region', { name: 'Identity' });
  expect(await idElement(page, identity)).toMatchObject({ tag: 'BDI', bidi: 'isolate', text: shown });
  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = dialogOf(page);
  const confirm = dialog.getByLabel('Type the external id exactly to confirm');
  const release = dialog.getByRole('button', { name: 'Release', exact: true });
  await confirm.fill(id.replace('\u200B', ''));
  await expect(release).toBeDisabled();
  await confirm.fill(shown);
  await expect(release).toBeEnabled();
  await release.click();
  await expect(dialog.getByRole('status')).toContainText('Released.');
  expect(row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', task.id)).toEqual({
    external_id: null,
  });
  await screenshot(page, testInfo, 'released-zero-width');
});

test('NFC and NFD spellings of one word: each row says another task holds a look-alike', async ({ page }, testInfo) => {
  const s = stamp();
  const nfc = await createTask(seed, `caf\u00e9-${s}`, 'NFC spelling');
  const nfd = await createTask(seed, `cafe\u0301-${s}`, 'NFD spelling');
  await signIn(page, seed.operator.email, `/tasks?ws=${seed.workspaceId}&q=caf`);
  const nfcRow = page.getByRole('row', { name: new RegExp(nfc.identifier) });
  const nfdRow = page.getByRole('row', { name: new RegExp(nfd.identifier) });
  await expect(nfcRow.getByRole('note')).toContainText(`Looks the same as the id of ${nfd.identifier} (NFD spelling)`);
  await expect(nfdRow.getByRole('note')).toContainText(`Looks the same as the id of ${nfc.identifier} (NFC spelling)`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'lookalikes');
});

test('double-clicking Release releases once and says so once; focus then lands on Close', async ({
  page,
}, testInfo) => {
  const id = `dbl-${stamp()}`;
  const task = await createTask(seed, id, 'Double click');
  await signIn(page, seed.operator.email, `/tasks/${task.id}`);
  const calls: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('task.releaseExternalId')) calls.push(r.url());
  });
  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = dialogOf(page);
  await dialog.getByLabel('Type the external id exactly to confirm').fill(id);
  await dialog.getByLabel('Reason (optional').fill('double-click test');
  await dialog.getByRole('button', { name: 'Release', exact: true }).dblclick();
  await expect(dialog.getByRole('status')).toContainText('Released.');
  await expect(dialog.getByText('Released.')).toHaveCount(1);
  await expect(dialog).not.toContainText('earlier attempt');
  expect(calls).toHaveLength(1);
  await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
  expect(rows('SELECT reason FROM release_operations WHERE holder_task_id = ?', task.id)).toEqual([
    { reason: 'double-click test' },
  ]);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'released-once');
});

test('the browser keeps prefix, filters, sort and page in the URL: a reload shows the same view', async ({
  page,
}, testInfo) => {
  const p = `page-${stamp()}-`;
  for (let n = 0; n < 26; n++) await createTask(seed, `${p}${String(n).padStart(2, '0')}`, `Paged ${n}`);
  await signIn(page, seed.operator.email, '/tasks');
  const browse = page.getByRole('search', { name: 'Browse tasks' });
  await browse.getByLabel('External id starts with').fill(p);
  await browse.getByLabel('Identity').selectOption('settled');
  await page
    .getByRole('columnheader', { name: /External id/ })
    .getByRole('button')
    .click();
  await expect(page).toHaveURL(/sort=external_id/);
  await expect(page.getByTestId('matching')).toHaveText('26 tasks match');
  const table = page.getByRole('table');
  await expect(table.getByRole('row').nth(1)).toContainText(`${p}00`);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText(`${p}25`);
  const url = page.url();
  expect(url).toContain(`q=${encodeURIComponent(p)}`);
  expect(url).toContain('settlement=settled');
  expect(url).toContain('after=');

  await page.reload();
  await expect(table.getByRole('row').nth(1)).toContainText(`${p}25`);
  await expect(browse.getByLabel('External id starts with')).toHaveValue(p);
  await expect(browse.getByLabel('Identity')).toHaveValue('settled');
  await expect(page.getByRole('columnheader', { name: /External id/ })).toHaveAttribute('aria-sort', 'ascending');
  await page.getByRole('button', { name: 'Previous page' }).click();
  await expect(table.getByRole('row').nth(1)).toContainText(`${p}00`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'browse-url-state');
});

test('history after release and re-create: both holders, the release with its reason, the new holder', async ({
  page,
}, testInfo) => {
  const id = `hist-${stamp()}`;
  const first = await createTask(seed, id, 'First holder');
  await signIn(page, seed.operator.email, `/tasks/${first.id}`);
  await page.getByRole('button', { name: 'Release identity…' }).click();
  const dialog = dialogOf(page);
  await dialog.getByLabel('Type the external id exactly to confirm').fill(id);
  await dialog.getByLabel('Reason (optional').fill('duplicate webhook');
  await dialog.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(dialog.getByRole('status')).toContainText('Released.');
  await dialog.getByRole('button', { name: 'Close' }).click();
  const second = await createTask(seed, id, 'Second holder');
  expect(second.id).not.toBe(first.id);

  await page.goto(`/identity?id=${encodeURIComponent(id)}`);
  await expect(page.getByTestId('identity-now')).toContainText(`Held by ${second.identifier}`);
  const holders = page.getByTestId('holders');
  await expect(holders.getByRole('row', { name: new RegExp(first.identifier) })).toContainText('released');
  await expect(holders.getByRole('row', { name: new RegExp(second.identifier) })).toContainText('holds it now');
  const releases = page.getByTestId('releases');
  await expect(releases.getByRole('row').nth(1)).toContainText(seed.operator.email);
  await expect(releases.getByRole('row').nth(1)).toContainText('console');
  await expect(releases.getByRole('row').nth(1)).toContainText('duplicate webhook');
  await expect(releases.getByRole('row').nth(1)).toContainText(`Released from ${first.identifier}`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'identity-history');
  // The history survives a reload (the id is in the URL), and Find says who holds it now.
  await page.reload();
  await expect(page.getByTestId('identity-now')).toContainText(`Held by ${second.identifier}`);
  await page.goto('/tasks');
  const find = page.getByRole('search', { name: 'Find by external id' });
  await find.getByLabel('External id (exact)').fill(id);
  await find.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('region', { name: 'Find by external id' }).getByRole('status')).toContainText(
    `by ${seed.operator.email} from ${first.identifier}; now held by ${second.identifier}`,
  );
});

test('release straight from an Unsettled row: the same guarded dialog, and the row stays while it is open', async ({
  page,
}, testInfo) => {
  const id = `unsettled-rel-${stamp()}`;
  await armFailpoint({ name: 'after_begin', action: 'pause', match: id });
  const pending = api('POST', '/tasks', seed.token, {
    workspace_id: seed.workspaceId,
    external_id: id,
    title: 'Paused for release',
  });
  try {
    await expect.poll(() => row('SELECT id FROM tasks WHERE external_id = ?', id)).toBeTruthy();
    const task = row<{ id: string; identifier: string }>('SELECT id, identifier FROM tasks WHERE external_id = ?', id)!;
    await signIn(page, seed.operator.email, '/unsettled');
    const line = page.getByRole('row', { name: new RegExp(id) });
    await line.getByRole('button', { name: `Release ${task.identifier}…` }).click();
    const dialog = dialogOf(page);
    await expect(dialog.getByRole('note', { name: 'Warning' })).toContainText('a create may still be running');
    await dialog.getByLabel('Type the external id exactly to confirm').fill(id);
    await dialog.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(dialog.getByRole('status')).toContainText('Released.');
    await expect(dialog.getByRole('button', { name: 'Close' })).toBeFocused();
    // The unsettled list has refreshed meanwhile; the dialog is still there with its answer.
    await page.waitForTimeout(2_500);
    await expect(dialog.getByRole('status')).toContainText('Released.');
    await expectAccessible(page);
    await screenshot(page, testInfo, 'release-from-unsettled');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page.getByRole('row', { name: new RegExp(id) })).toHaveCount(0);
    expect(row<{ external_id: string | null }>('SELECT external_id FROM tasks WHERE id = ?', task.id)).toEqual({
      external_id: null,
    });
  } finally {
    await releaseFailpoint('after_begin');
    await pending;
  }
});
