// SPEC §13: "Every console URL names its workspace, so a shared link shows the same thing to everyone who may see it
// (and a page about an identity always says which workspace it looked in)." The defect: only /tasks followed `?ws=`;
// as a viewer of two workspaces with INT used last, `/identity?id=jira:PROJ-1001` (held in OPS) said "Nothing holds it…
// Never released" without naming the workspace it looked in, and the console's own links read the browser's memory.
import type { Page } from '@playwright/test';
import {
  api,
  cliBatch,
  ref,
  tokenCommand,
  userCommand,
  userEmail,
  workspaceCommand,
  expect,
  expectAccessible,
  row,
  screenshot,
  signIn,
  test,
  useSession,
} from './support/console';

type Workspace = { id: string; prefix: string; name: string };
let ops: Workspace;
let int: Workspace;
let stranger: Workspace;
let viewer: { email: string };
let held: { id: string; identifier: string };
let operationId: string;
const externalId = `jira:PROJ-${Date.now()}`;

test.beforeAll(async () => {
  const [o, i, x] = [workspaceCommand('OP'), workspaceCommand('IN'), workspaceCommand('XX')];
  const [opsRow, intRow, strangerRow, person, { token }] = cliBatch<
    [{ id: string }, { id: string }, { id: string }, { email: string }, { token: string }]
  >([
    o.command,
    i.command,
    x.command,
    userCommand(userEmail('two', 'viewer'), 'viewer', [ref(0), ref(1)]),
    tokenCommand(`ops-bot-${o.prefix}`, [ref(0)], ['tasks:write']),
  ]);
  ops = { id: opsRow.id, prefix: o.prefix, name: o.name };
  int = { id: intRow.id, prefix: i.prefix, name: i.name };
  stranger = { id: strangerRow.id, prefix: x.prefix, name: x.name };
  viewer = person;
  const r = await api('POST', '/tasks', token, { workspace_id: ops.id, external_id: externalId, title: 'Held in OPS' });
  expect(r.status).toBe(200);
  held = r.body as { id: string; identifier: string };
  operationId = row<{ id: string }>('SELECT id FROM creation_operations WHERE task_id = ?', held.id)!.id;
});

const picker = (page: Page) => page.getByLabel('Workspace');

/** Makes INT the workspace this browser used last. */
async function useIntLast(page: Page) {
  await page.goto(`/?ws=${int.id}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(picker(page)).toHaveValue(int.id);
}

test('a shared identity link opens the workspace it names, whatever this browser used last, and says where it looked', async ({
  page,
}, testInfo) => {
  await useSession(page, viewer.email);
  await useIntLast(page);
  await page.goto(`/identity?ws=${ops.id}&id=${encodeURIComponent(externalId)}`);
  await expect(page.getByTestId('looked-in')).toContainText(`Looked in workspace ${ops.prefix} · ${ops.name}`);
  await expect(page.getByTestId('identity-now')).toContainText(`Held by ${held.identifier}`);
  await expect(picker(page)).toHaveValue(ops.id);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'identity-shared-link');
});

test('an address without a workspace opens the one used last, is rewritten to name it, and says where else the id is held', async ({
  page,
}, testInfo) => {
  await useSession(page, viewer.email);
  await useIntLast(page);
  await page.goto(`/identity?id=${encodeURIComponent(externalId)}`);
  await expect(page).toHaveURL(new RegExp(`[?&]ws=${int.id}`));
  await expect(page.getByTestId('looked-in')).toContainText(`Looked in workspace ${int.prefix}`);
  await expect(page.getByTestId('identity-now')).toContainText(`Nothing holds it in ${int.prefix}`);
  const elsewhere = page.getByTestId('held-elsewhere');
  await expect(elsewhere).toContainText(`${held.identifier} in ${ops.prefix} · ${ops.name}`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'identity-bare-link');
  await elsewhere.getByRole('link', { name: held.identifier }).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${held.id}\\?ws=${ops.id}`));
  await expect(picker(page)).toHaveValue(ops.id);
});

test('every console link on every page names the workspace on screen', async ({ page }) => {
  await useSession(page, viewer.email);
  const pages = [
    '/',
    '/tasks',
    '/unsettled',
    '/operations',
    '/releases',
    `/identity?id=${encodeURIComponent(externalId)}`,
    `/tasks/${held.id}`,
    `/operations/${operationId}`,
  ];
  for (const path of pages) {
    await page.goto(`${path}${path.includes('?') ? '&' : '?'}ws=${ops.id}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Loading…' })).toHaveCount(0);
    const hrefs = await page.locator('a[href^="/"]').evaluateAll((as) => as.map((a) => a.getAttribute('href')!));
    const inside = hrefs.filter((h) => !h.startsWith('/docs/') && !h.startsWith('/api/'));
    expect(inside.length, path).toBeGreaterThan(5);
    expect(
      inside.filter((h) => new URL(h, 'http://x').searchParams.get('ws') !== ops.id),
      `links on ${path} that do not name the workspace`,
    ).toEqual([]);
  }
  // A task's page names its own workspace even when opened from a link that named another.
  await page.goto(`/tasks/${held.id}?ws=${int.id}`);
  await expect(page).toHaveURL(new RegExp(`ws=${ops.id}`));
  await expect(picker(page)).toHaveValue(ops.id);
});

test('an address naming a workspace the person cannot see says so, the same whether it exists or not', async ({
  page,
}, testInfo) => {
  await useSession(page, viewer.email);
  for (const ws of [stranger.id, '00000000-0000-4000-8000-000000000000']) {
    await page.goto(`/operations?ws=${ws}`);
    await expect(page.getByTestId('unknown-workspace')).toContainText('This link names a workspace you cannot see');
    await expect(page.getByRole('table')).toHaveCount(0);
  }
  await expectAccessible(page);
  await screenshot(page, testInfo, 'unknown-workspace');
  await page
    .getByTestId('unknown-workspace')
    .getByRole('button', { name: `${ops.prefix} · ${ops.name}` })
    .click();
  await expect(page).toHaveURL(new RegExp(`/operations\\?ws=${ops.id}$`));
});

test('the workspace picker opens the same id in the other workspace', async ({ page }) => {
  await signIn(page, viewer.email, `/identity?ws=${ops.id}&id=${encodeURIComponent(externalId)}`);
  await expect(page.getByTestId('identity-now')).toContainText(`Held by ${held.identifier}`);
  await picker(page).selectOption(int.id);
  await expect(page).toHaveURL(new RegExp(`ws=${int.id}`));
  expect(new URL(page.url()).searchParams.get('id')).toBe(externalId);
  await expect(page.getByTestId('looked-in')).toContainText(`Looked in workspace ${int.prefix}`);
  await expect(page.getByTestId('identity-now')).toContainText(`Nothing holds it in ${int.prefix}`);
});
