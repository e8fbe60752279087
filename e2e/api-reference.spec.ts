// The REST API reference is reachable from the console's header, renders every operation of the OpenAPI document the
// server serves (as static HTML from the server: no script of its own, nothing from the internet), is axe-clean, and
// links each operation and named schema by anchor.
import { baseUrl, expect, expectAccessible, type Seed, seedWorkspace, signIn, test } from './support/console';

let seed: Seed;
test.beforeAll(() => {
  seed = seedWorkspace('AR');
});

interface Served {
  info: { title: string };
  paths: Record<string, Record<string, { operationId: string; summary: string }>>;
}

/** Every operation of the document as served: what the page must show. */
async function servedOperations(): Promise<
  Array<{ method: string; path: string; operationId: string; summary: string }>
> {
  const doc = (await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json()) as Served;
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method, path, ...op })),
  );
}

test('the console header opens the API reference, which shows every operation of the served document', async ({
  page,
}, testInfo) => {
  // Axe over every operation of the reference, and the run's first seeding (beforeAll), take long on a busy machine.
  test.slow();
  const elsewhere: string[] = [];
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(`${baseUrl()}/`) && !url.startsWith('data:')) elsewhere.push(url);
  });
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/Content.Security.Policy/i.test(m.text())) refused.push(m.text());
  });

  await signIn(page, seed.admin.email);
  await page.getByRole('banner').getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(`${baseUrl()}/docs/api`);
  await expect(page.getByRole('heading', { name: 'REST API reference', level: 1 })).toBeVisible();
  await expect(page.getByRole('heading', { name: /^Tether REST API/, level: 2 })).toBeVisible();

  // Every operation the server documents has its section (anchored by operationId), with method, path and summary,
  // and a link in the contents: an operation missing from the page fails here.
  const operations = await servedOperations();
  expect(operations.length).toBeGreaterThan(15);
  const contents = page.getByRole('navigation', { name: 'Contents' });
  for (const op of operations) {
    const section = page.locator(`section[id="${op.operationId}"]`);
    await expect(section.getByRole('heading', { level: 3, name: op.summary })).toBeVisible();
    await expect(section.locator('.api-endpoint')).toHaveText(`${op.method.toUpperCase()} /api/v1${op.path}`);
    await expect(section.locator('.api-meta')).toContainText(op.operationId);
    await expect(contents.locator(`a[href="#${op.operationId}"]`)).toHaveCount(1);
  }
  await expect(page.locator('section.api-operation')).toHaveCount(operations.length);

  // The release route: its Idempotency-Key header (required, a uuid), and its 409 bodies exactly as sent.
  const release = page.locator('section[id="releaseExternalId"]');
  const key = release.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /Idempotency-Key/ }) });
  await expect(key.getByRole('rowheader')).toHaveText(/Idempotency-Key\s*header, required/);
  await expect(key).toContainText('string (uuid)');
  await expect(release.locator('.api-error-body', { hasText: '"code":"creation_completing"' })).toHaveText(
    '{"error":"creation is completing; retry shortly","code":"creation_completing"}',
  );
  await expect(release.locator('.api-error-body', { hasText: 'idempotency_key_conflict' })).toHaveCount(1);

  // The create's request body: fields with type and whether they are required, and a link to the named schema.
  const create = page.locator('section[id="createTask"]');
  await expect(create.getByText('Required, as application/json.')).toBeVisible();
  await expect(create.getByRole('rowheader', { name: /^workspace_id\s*required$/ }).first()).toBeVisible();
  await expect(
    create.getByRole('rowheader', { name: /^repositories\[\]\.repository_id\s*required$/ }).first(),
  ).toBeVisible();
  await create.getByRole('link', { name: 'CreateTaskResult' }).first().click();
  await expect(page).toHaveURL(`${baseUrl()}/docs/api#schema-CreateTaskResult`);
  await expect(page.getByRole('heading', { level: 3, name: 'CreateTaskResult' })).toBeInViewport();

  // Deep links: the contents' link lands on the operation.
  await contents.locator('a[href="#releaseExternalId"]').click();
  await expect(release.getByRole('heading', { level: 3 })).toBeInViewport();
  await page.screenshot({ path: testInfo.outputPath('api-reference.png'), fullPage: false });

  await expectAccessible(page);
  expect(elsewhere).toEqual([]);
  expect(refused).toEqual([]);
});

test('the reference is public like the document, and is HTML from the server: no sign-in, no script needed', async ({
  browser,
}, testInfo) => {
  test.slow(); // axe over the whole reference takes long on a busy machine
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const res = await page.goto('/docs/api');
  expect(res?.status()).toBe(200);
  await expect(page.locator('section[id="createTask"]')).toContainText('POST /api/v1/tasks');
  await expect(page.locator('section[id="getOpenApiDocument"] .api-meta')).toContainText('no credentials needed');
  await expect(page.locator('section[id="createTask"] .api-meta')).toContainText('needs a bearer token');
  // The viewport only: a full-page capture of the whole reference (every operation, thousands of pixels tall) took over a
  // minute in software-rendered Chromium on a busy machine.
  await page.screenshot({ path: testInfo.outputPath('api-reference-scriptless.png') });
  await context.close();
  expect((await fetch(`${baseUrl()}/api/v1/openapi.json`)).status).toBe(200);
});
