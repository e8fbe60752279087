// Issue 19 item 4: the REST API reference is reachable from the console's header, renders the routes of the OpenAPI
// document the server serves, and works offline — every request the page makes stays on this server, and the page's
// CSP (which forbids anything else) is never violated.
import { expect, test } from '@playwright/test';
import { BASE_URL, seedWorkspace, signIn, type Seed } from './support/console';

let seed: Seed;
test.beforeAll(() => {
  seed = seedWorkspace('AR');
});

test('the console header opens the API reference, which renders the routes from the served document', async ({ page }, testInfo) => {
  const elsewhere: string[] = [];
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${BASE_URL}/`) && !url.startsWith('data:')) elsewhere.push(url);
  });
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) refused.push(m.text());
  });
  const document = page.waitForResponse((r) => r.url() === `${BASE_URL}/api/v1/openapi.json`);

  await signIn(page, seed.admin.email);
  await page.getByRole('banner').getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(`${BASE_URL}/docs/api`);
  await expect(page.getByRole('heading', { name: 'REST API reference', level: 1 })).toBeVisible();
  expect((await document).status()).toBe(200);

  // Swagger UI's rendering of the document: the info title, and the release route with its Idempotency-Key header.
  await expect(page.getByRole('heading', { name: /Tether REST API/ })).toBeVisible();
  const release = page.locator('.opblock-delete').filter({ has: page.locator('[data-path="/workspaces/{workspace_id}/tasks/by-external-id"]') });
  await expect(release).toBeVisible();
  await release.locator('.opblock-summary').click();
  await expect(release.locator('.parameter__name', { hasText: 'Idempotency-Key' })).toBeVisible();
  await expect(release.getByText('creation_completing').first()).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('api-reference.png'), fullPage: false });

  expect(elsewhere).toEqual([]);
  expect(refused).toEqual([]);
});

test('the reference is public like the document: no sign-in needed', async ({ page }) => {
  await page.goto('/docs/api');
  await expect(page.locator('[data-path="/tasks"]').first()).toBeVisible();
  expect((await page.request.get('/api/v1/openapi.json')).status()).toBe(200);
});
