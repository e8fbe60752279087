// The console shell loads in a real browser and shows this process's health. The console sits behind sign-in, so each
// page test signs in first as a seeded admin.
import { expect, expectAccessible, signIn, test } from './support/console';

test('the console shell shows the server as Ready with its database dialect', async ({ page, seed }, testInfo) => {
  await signIn(page, seed.admin.email);
  await expect(page.getByRole('link', { name: 'Tether' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Ready', exact: true })).toBeVisible();
  await expect(page.getByText('sqlite (up)')).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('console-shell.png'), fullPage: true });
});

test('the console navigation lists every operator page', async ({ page, seed }) => {
  await signIn(page, seed.admin.email);
  const nav = page.getByRole('navigation', { name: 'Console' });
  for (const label of ['Overview', 'Tasks', 'Unsettled', 'Operations', 'Releases', 'Settings']) {
    await expect(nav.getByRole('link', { name: label, exact: true })).toBeVisible();
  }
  await expect(nav.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');
});

test('pages carry the security headers that forbid framing', async ({ request }) => {
  const res = await request.get('/');
  expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers()['referrer-policy']).toBe('same-origin');
  expect(res.headers()['x-content-type-options']).toBe('nosniff');
});

test('the console shell has no serious accessibility violations', async ({ page, seed }) => {
  await signIn(page, seed.admin.email);
  await expect(page.getByRole('heading', { name: 'Ready', exact: true })).toBeVisible();
  await expectAccessible(page);
});
