// Real not-found pages and a session check that fails gracefully. What this catches: `/tasks/<unknown id>` showing a
// bare error with a useless Try again, answering HTTP 200 and asking the API twice; unknown routes getting Next's bare
// 404 outside the console; a failed session check replacing the page with one bare line.
import type { Page } from '@playwright/test';
import {
  armFailpoint,
  createTask,
  expect,
  expectAccessible,
  releaseFailpoint,
  row,
  screenshot,
  test,
  useSession,
} from './support/console';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** The console frame is there: navigation, who is signed in, Sign out. */
async function expectFrame(page: Page) {
  await expect(page.getByRole('navigation', { name: 'Console' })).toBeAttached();
  await expect(page.getByRole('link', { name: 'Tether' })).toBeVisible();
}

for (const [what, path] of [
  ['an unknown task', `/tasks/${UNKNOWN}`],
  ['an unknown operation', `/operations/${UNKNOWN}`],
  ['an id no task can have', '/tasks/not-an-id'],
  ['an unknown route', '/no/such/page'],
] as const) {
  test(`${what} is a 404 inside the console with a way back`, async ({ page, seed }, testInfo) => {
    await useSession(page, seed.operator.email);
    const apiCalls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/trpc/console.task') || r.url().includes('/api/trpc/console.operation'))
        apiCalls.push(r.url());
    });
    const res = await page.goto(path);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
    await expectFrame(page);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
    // The server decided before rendering: the browser never asked for the missing thing (let alone twice).
    expect(apiCalls).toEqual([]);
    await expectAccessible(page);
    await screenshot(page, testInfo, `not-found-${path.split('/')[1]}`);
    await page.getByRole('main').getByRole('link', { name: 'Overview' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  });
}

test('a task and an operation that exist answer 200, and one in a workspace you cannot see is a 404', async ({
  page,
  browser,
  seed,
}) => {
  const task = await createTask(seed, `nf-exists-${Date.now()}`);
  const op = row<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = ?', task.id)!;
  await useSession(page, seed.operator.email);
  expect((await page.goto(`/tasks/${task.id}`))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: new RegExp(task.identifier) })).toBeVisible();
  expect((await page.goto(`/operations/${op.id}`))?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: /Creation operation/ })).toBeVisible();

  // Signed out, the page is not a 404 (that would say it does not exist); it sends the person to sign in.
  const anonymous = await browser.newPage();
  const res = await anonymous.goto(`/tasks/${task.id}`);
  expect(res?.status()).toBe(200);
  await expect(anonymous).toHaveURL(/\/signin\?next=/);
  await anonymous.close();
});

test('a failed session check keeps the console frame and offers a retry that works', async ({
  page,
  seed,
}, testInfo) => {
  await useSession(page, seed.operator.email);
  // The server's session check fails (for the page's render on the server and for the browser's own ask alike).
  await armFailpoint({ name: 'session_me', action: 'error' });
  try {
    await page.goto('/unsettled');
    const alert = page.getByRole('alert').filter({ hasText: 'could not check your session' });
    await expect(alert).toBeVisible();
    await expectFrame(page);
    await expectAccessible(page);
    await screenshot(page, testInfo, 'session-check-failed');

    await releaseFailpoint('session_me');
    await alert.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: 'Unsettled identities' })).toBeVisible();
  } finally {
    await releaseFailpoint('session_me');
  }
});
