// Sign-in, sign-out and roles (SPEC §11): a viewer sees no release button and the server refuses them.
import {
  baseUrl,
  createTask,
  expect,
  expectAccessible,
  PASSWORD,
  row,
  rows,
  screenshot,
  sessionDigest,
  signIn,
  signInWithForm,
  test,
} from './support/console';

test('signing in with a wrong password is refused in plain words and sets no session', async ({ page, seed }) => {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(seed.operator.email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('email or password is wrong')).toBeVisible();
  expect(await page.context().cookies()).toEqual([]);
});

test('too many failed sign-ins are refused in plain words with the wait, and the button waits too (SPEC §11)', async ({
  page,
}) => {
  // An email nobody has: throttled exactly like a real account, and no seeded person is locked out for other specs.
  const email = `nobody-${Date.now()}@example.test`;
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a guess');
  const throttled = page.getByText(/^Too many attempts; try again in \d+ seconds?\.$/);
  // Five failures are free; the next attempt made within the wait is refused (a slow click may land after it).
  for (let i = 0; i < 10; i++) {
    const answered = page.waitForResponse((r) => r.url().includes('/api/trpc/session.login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    if ((await answered).status() === 429) break;
  }
  await expect(throttled).toBeVisible();
  await expect(page.getByRole('button', { name: /^Try again in \d+ s$/ })).toBeDisabled();
  expect(await page.context().cookies()).toEqual([]);
});

test('the console sends a signed-out visitor to sign-in, and back to the page they asked for', async ({
  page,
  seed,
}, testInfo) => {
  await page.goto('/releases');
  await expect(page).toHaveURL(/\/signin\?next=%2Freleases/);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'signin');
  await page.getByLabel('Email').fill(seed.operator.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Releases' })).toBeVisible();
});

test('signing out ends the session on the server and in the browser', async ({ page, seed }) => {
  await signInWithForm(page, seed.operator.email); // a session of its own: the one it ends
  const digest = await sessionDigest(page);
  expect(row('SELECT user_id FROM sessions WHERE id_hash = ?', digest)).toEqual({ user_id: seed.operator.id });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(row('SELECT user_id FROM sessions WHERE id_hash = ?', digest)).toBeUndefined();
  expect((await page.context().cookies()).filter((c) => c.name === 'tether_session')).toEqual([]);
  await page.goto('/tasks');
  await expect(page).toHaveURL(/\/signin/);
});

test('a viewer sees no release button, and the server refuses their release', async ({ page, seed }) => {
  const externalId = `viewer-${Date.now()}`;
  const task = await createTask(seed, externalId);
  await signIn(page, seed.viewer.email, `/tasks/${task.id}`);
  await expect(page.getByRole('heading', { name: 'Identity' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Identity' }).getByText(externalId, { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: /Release/ })).toHaveCount(0);
  await expect(page.getByText('Releasing an identity needs the operator or admin role.')).toBeVisible();

  // The same request the dialog would send, from the viewer's signed-in page (cookie + CSRF token).
  const key = '7d0f6a52-5b1e-4a57-9d2a-1f9f3c0b8e11';
  const status = await page.evaluate(
    async ({ base, workspaceId, externalId, key }) => {
      const me = await (await fetch(`${base}/api/trpc/session.me`)).json();
      const res = await fetch(`${base}/api/trpc/task.releaseExternalId`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': me.result.data.csrf_token },
        body: JSON.stringify({ workspace_id: workspaceId, external_id: externalId, idempotency_key: key }),
      });
      return res.status;
    },
    { base: baseUrl(), workspaceId: seed.workspaceId, externalId, key },
  );
  // SPEC §7: unauthorized → 404 "task not found", indistinguishable from a miss; nothing stored.
  expect(status).toBe(404);
  expect(row<{ external_id: string }>('SELECT external_id FROM tasks WHERE id = ?', task.id)!.external_id).toBe(
    externalId,
  );
  expect(rows('SELECT id FROM release_operations WHERE idempotency_key = ?', key)).toHaveLength(0);
});

test('a viewer sees settings are for admins only', async ({ page, seed }) => {
  await signIn(page, seed.viewer.email, '/settings');
  await expect(page.getByText('Settings are for workspace admins. You are a viewer')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'API tokens' })).toHaveCount(0);
});
