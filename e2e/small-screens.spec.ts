// Small screens. At 390 px no console page may scroll sideways (what this catches: the Overview scrolling 300 px when
// the chart's screen-reader table is not constrained, the Operations state filter running off-screen) and the header is
// one compact line with a Menu (the full bar would take ~250 px). Every console page is visited: add new pages to
// PAGES.
import type { Page } from '@playwright/test';
import {
  createTask,
  expect,
  expectAccessible,
  row,
  screenshot,
  type Seed,
  seedWorkspace,
  test,
  useSession,
} from './support/console';

let seed: Seed;
let taskId = '';
let operationId = '';
let externalId = '';
test.beforeAll(async () => {
  seed = seedWorkspace('SS');
  externalId = `small-${Date.now()}-${'long-segment-'.repeat(6)}`;
  const task = await createTask(seed, externalId, 'A task with a long external id to wrap');
  taskId = task.id;
  operationId = row<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = ?', task.id)!.id;
});

const SMALL = { width: 390, height: 844 };

/**
 * The person's session, then 390 px: the test's own page load is the first at that width. (A first sign-in of the run
 * goes through the form at desktop width: signIn waits for Sign out, which sits in the closed menu when small.)
 */
async function signInSmall(page: Page, email: string) {
  await useSession(page, email);
  await page.setViewportSize(SMALL);
}

/** Every console page, with the heading that says it has rendered. Pages added later go here. */
const PAGES: Array<{ name: string; path: () => string; heading: RegExp }> = [
  { name: 'overview', path: () => '/', heading: /^Overview$/ },
  { name: 'tasks', path: () => '/tasks', heading: /^Tasks$/ },
  { name: 'task', path: () => `/tasks/${taskId}`, heading: /A task with a long external id/ },
  { name: 'unsettled', path: () => '/unsettled', heading: /^Unsettled identities$/ },
  { name: 'operations', path: () => '/operations', heading: /^Creation operations$/ },
  { name: 'operation', path: () => `/operations/${operationId}`, heading: /^Creation operation / },
  { name: 'releases', path: () => '/releases', heading: /^Release/ },
  {
    name: 'identity history',
    path: () => `/identity?id=${encodeURIComponent(externalId)}`,
    heading: /^Identity history$/,
  },
  { name: 'settings', path: () => '/settings', heading: /^Settings$/ },
  { name: 'not-found', path: () => '/no/such/page', heading: /^Not found$/ },
  { name: 'api-reference', path: () => '/docs/api', heading: /^REST API reference$/ },
];

/** How far the page can scroll sideways (0 when it fits). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

for (const p of PAGES) {
  test(`${p.name} does not scroll sideways at 390 px`, async ({ page }, testInfo) => {
    await signInSmall(page, seed.admin.email);
    // The frame is rendered on the server now (the session is read there): server and browser must agree.
    const hydration: string[] = [];
    // Production React reports a mismatch only by number (#418, #423, #425: https://react.dev/errors).
    const isMismatch = (text: string) => /hydrat|error #(418|423|425)\b/i.test(text);
    page.on('console', (m) => {
      if (m.type() === 'error' && isMismatch(m.text())) hydration.push(m.text());
    });
    page.on('pageerror', (e) => {
      if (isMismatch(e.message)) hydration.push(e.message);
    });
    await page.goto(p.path());
    await expect(page.getByRole('heading', { level: 1, name: p.heading })).toBeVisible();
    await page.waitForLoadState('networkidle').catch(() => undefined); // the live stream never idles; best effort
    await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toHaveCount(0);
    expect(await sidewaysOverflow(page)).toBe(0);
    expect(hydration).toEqual([]);
    await screenshot(page, testInfo, `390-${p.name}`);
    await expectAccessible(page);
  });
}

test('the header is one compact line with a Menu that opens the pages and closes on navigation', async ({
  page,
}, testInfo) => {
  await signInSmall(page, seed.operator.email);
  await page.goto('/operations?state=open');
  const header = page.getByRole('banner');
  const box = (await header.boundingBox())!;
  expect(box.height).toBeLessThan(70);
  const menu = page.getByRole('button', { name: 'Menu' });
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeHidden();
  await menu.click();
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, '390-menu-open');
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Unsettled' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Unsettled identities' })).toBeVisible();
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeHidden();
  expect(await sidewaysOverflow(page)).toBe(0);
});
