// SPEC §13: "Lists are paged with a total and filterable (operations by state, external-id prefix and time; releases by
// reason and actor); nothing is silently cut off." The defects: Operations stopped at 200 rows with no paging, total or
// search; Releases had no reason column, filter, search or paging, and replays and key conflicts never showed; an
// operation begun with an API token read "begun by unknown". Also here: the counts by id namespace on the Overview, and
// the export of a filtered list. A workspace of its own (its counts are asserted).
import { readFileSync } from 'node:fs';
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
  screenshot,
  signIn,
  test,
} from './support/console';

let ws: { id: string; prefix: string; name: string };
let operator: { email: string };
let token: string;
let tokenName: string;
const stamp = Date.now();
const requestId = `req-find-me-${stamp}`;
const JIRA = 120;
const GH = 10;
const key = crypto.randomUUID();

test.beforeAll(async () => {
  const bare = workspaceCommand('LS');
  tokenName = `lister-${bare.prefix}`;
  const [created, person, made] = cliBatch<[{ id: string }, { email: string }, { token: string }]>([
    bare.command,
    userCommand(userEmail('ls', 'operator'), 'operator', [ref(0)]),
    tokenCommand(tokenName, [ref(0)], ['tasks:write', 'identities:release']),
  ]);
  ws = { id: created.id, prefix: bare.prefix, name: bare.name };
  operator = person;
  token = made.token;
  for (let n = 0; n < JIRA + GH; n++) {
    const externalId = n < JIRA ? `jira:L-${n}` : `gh:L-${n}`;
    const r = await api(
      'POST',
      '/tasks',
      token,
      { workspace_id: ws.id, external_id: externalId, title: `List ${n}` },
      n === 7 ? { 'x-request-id': requestId } : {},
    );
    expect(r.status).toBe(200);
  }
  const release = (
    externalId: string,
    reason: string | null,
    idempotencyKey = crypto.randomUUID(),
    rid = `rel-${crypto.randomUUID()}`,
  ) =>
    api(
      'DELETE',
      `/workspaces/${ws.id}/tasks/by-external-id?external_id=${encodeURIComponent(externalId)}${reason ? `&reason=${encodeURIComponent(reason)}` : ''}`,
      token,
      undefined,
      {
        'idempotency-key': idempotencyKey,
        'x-request-id': rid,
      },
    );
  expect((await release('jira:L-1', 'duplicate from a replayed WEBHOOK', key, `rel-first-${stamp}`)).status).toBe(204);
  expect((await release('jira:L-1', 'duplicate from a replayed WEBHOOK', key, `rel-replay-${stamp}`)).status).toBe(204);
  expect((await release('jira:L-2', null, key, `rel-conflict-${stamp}`)).status).toBe(409);
  expect((await release('jira:L-3', 'wrong project')).status).toBe(204);
  expect((await release('gh:L-125', null)).status).toBe(204);
});

const summary = (page: Page) => page.getByTestId('page-summary');

test('operations: every page reachable with its place in the total; filters and the page are in the URL and survive a reload', async ({
  page,
}, testInfo) => {
  await signIn(page, operator.email, `/operations?ws=${ws.id}`);
  await expect(summary(page)).toHaveText(`Operations 1–50 of ${JIRA + GH}`);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'operations-first-page');
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(summary(page)).toHaveText(`Operations 51–100 of ${JIRA + GH}`);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(summary(page)).toHaveText(`Operations 101–130 of ${JIRA + GH}`);
  await expect(page.getByRole('button', { name: 'Next page' })).toBeDisabled();
  await expect(page.getByTestId('operations').getByRole('row')).toHaveCount(31);
  expect(page.url()).toContain('after=');
  await page.reload();
  await expect(summary(page)).toHaveText(`Operations 101–130 of ${JIRA + GH}`);
  await page.getByRole('button', { name: 'Previous page' }).click();
  await expect(summary(page)).toHaveText(`Operations 51–100 of ${JIRA + GH}`);

  const filters = page.getByRole('search', { name: 'Find and filter operations' });
  await filters.getByLabel('State').selectOption('aborted');
  await expect(page.getByText('No creation operations match these filters')).toBeVisible();
  await filters.getByLabel('State').selectOption('completed');
  await expect(summary(page)).toHaveText(`Operations 1–50 of ${JIRA + GH}`);
  await filters.getByLabel('External id starts with').fill('gh:');
  await expect(summary(page)).toHaveText(`Operations 1–${GH} of ${GH}`);
  await expect(page).toHaveURL(/state=completed/);
  await expect(page).toHaveURL(/prefix=gh%3A/);
  await page.reload();
  await expect(summary(page)).toHaveText(`Operations 1–${GH} of ${GH}`);
  await expect(filters.getByLabel('External id starts with')).toHaveValue('gh:');
  await expect(filters.getByLabel('State')).toHaveValue('completed');
  await screenshot(page, testInfo, 'operations-filtered');

  // Time range: nothing began before an hour ago; everything since.
  const hourAgo = await page.evaluate(() => {
    const d = new Date(Date.now() - 3_600_000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
  });
  await filters.getByLabel(/Begun before/).fill(hourAgo);
  await expect(page.getByText('No creation operations match these filters')).toBeVisible();
  await filters.getByLabel(/Begun before/).fill('');
  await filters.getByLabel(/Begun from/).fill(hourAgo);
  await expect(summary(page)).toHaveText(`Operations 1–${GH} of ${GH}`);
  await expect(page).toHaveURL(/from=/);
  await expectAccessible(page);
});

test('an operation is found by the request id of the create that began it, and names the token that began it', async ({
  page,
}, testInfo) => {
  await signIn(page, operator.email, `/operations?ws=${ws.id}`);
  const filters = page.getByRole('search', { name: 'Find and filter operations' });
  await filters.getByLabel('Operation id or request id').fill(requestId);
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(summary(page)).toHaveText('Operations 1–1 of 1');
  const line = page.getByTestId('operations').getByRole('row').nth(1);
  await expect(line).toContainText('jira:L-7');
  await expect(line).toContainText(`token “${tokenName}”`);
  await expect(line).toContainText(requestId);
  await expect(page).toHaveURL(new RegExp(`q=${requestId}`));
  await expectAccessible(page);
  await screenshot(page, testInfo, 'operations-search-request-id');
  await line.getByRole('link').first().click();
  await expect(page.getByTestId('begun-by')).toHaveText(`token “${tokenName}”`);
  await expect(page.getByRole('list', { name: 'Operation history' })).toContainText(`begun by token “${tokenName}”`);
  await expect(page.getByRole('list', { name: 'Operation history' })).not.toContainText('unknown');
  await expect(page.getByTestId('request-id').first()).toHaveText(requestId);
  // The operation's first 8 characters (what lists show) find it too.
  const opId = page.url().match(/operations\/([0-9a-f-]{36})/)![1]!;
  await page.goto(`/operations?ws=${ws.id}&q=${opId.slice(0, 8)}`);
  await expect(page.getByTestId('operations').getByRole('row').nth(1)).toContainText('jira:L-7');
});

test('export: the whole filtered list, every page, as CSV and JSON', async ({ page }) => {
  await signIn(page, operator.email, `/operations?ws=${ws.id}&prefix=gh%3A`);
  await expect(summary(page)).toHaveText(`Operations 1–${GH} of ${GH}`);
  const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'CSV' }).click()]);
  expect(csv.suggestedFilename()).toMatch(/^tether-operations-\d{8}T\d{6}Z\.csv$/);
  const lines = readFileSync((await csv.path())!, 'utf8')
    .trim()
    .split('\r\n');
  expect(lines).toHaveLength(GH + 1);
  expect(lines.slice(1).every((l) => l.includes('gh:L-'))).toBe(true);
  await page.goto(`/operations?ws=${ws.id}`);
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'JSON' }).click()]);
  const rows = JSON.parse(readFileSync((await json.path())!, 'utf8')) as Array<{ begun_by: string }>;
  expect(rows).toHaveLength(JIRA + GH); // more than the 50 on screen: every page
  expect(rows.every((r) => r.begun_by === `token “${tokenName}”`)).toBe(true);
});

test('releases: reason, request id and key; filters by reason and by who; replays and key conflicts beside the release they met', async ({
  page,
}, testInfo) => {
  await signIn(page, operator.email, `/releases?ws=${ws.id}`);
  await expect(summary(page)).toHaveText('Releases 1–3 of 3');
  const filters = page.getByRole('search', { name: 'Find and filter releases' });
  await filters.getByLabel('Reason contains').fill('WEBHOOK');
  await expect(summary(page)).toHaveText('Releases 1–1 of 1');
  const line = page.getByTestId('releases').getByRole('row').nth(1);
  await expect(line).toContainText('duplicate from a replayed WEBHOOK');
  await expect(line).toContainText(`token “${tokenName}”`);
  await expect(line).toContainText(`rel-first-${stamp}`);
  await expect(line).toContainText('1 replayed, 1 key conflict');
  await line.getByText('1 replayed, 1 key conflict').click();
  await expect(line).toContainText(`rel-replay-${stamp}`);
  await expect(line).toContainText(`rel-conflict-${stamp}`);
  await expect(line).toContainText('key conflict (409): the same key was sent for jira:L-2');
  await expect(page).toHaveURL(/reason_text=WEBHOOK/);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'releases-filtered');

  await filters.getByLabel('Reason contains').fill('');
  await filters.getByRole('combobox', { name: 'Reason', exact: true }).selectOption('without');
  await expect(summary(page)).toHaveText('Releases 1–1 of 1');
  await expect(page.getByTestId('releases')).toContainText('gh:L-125');
  await filters.getByRole('combobox', { name: 'Reason', exact: true }).selectOption('any');
  await filters.getByLabel('Released by').selectOption({ label: `token “${tokenName}”` });
  await expect(summary(page)).toHaveText('Releases 1–3 of 3');
  await filters.getByLabel('Idempotency-Key or request id').fill(key.toUpperCase());
  await filters.getByRole('button', { name: 'Search' }).click();
  await expect(summary(page)).toHaveText('Releases 1–1 of 1');
});

test('the overview counts work by id namespace: which integration holds, leaves unsettled, creates and releases', async ({
  page,
}, testInfo) => {
  await signIn(page, operator.email, `/?ws=${ws.id}`);
  const table = page.getByTestId('namespaces');
  const jira = table.getByRole('row', { name: /^jira/ });
  await expect(jira.getByRole('cell').nth(0)).toHaveText(String(JIRA - 2));
  await expect(jira.getByRole('cell').nth(2)).toHaveText(String(JIRA));
  await expect(jira.getByRole('cell').nth(4)).toContainText('2 (2 freed)');
  const gh = table.getByRole('row', { name: /^gh/ });
  await expect(gh.getByRole('cell').nth(0)).toHaveText(String(GH - 1));
  await expectAccessible(page);
  await screenshot(page, testInfo, 'overview-namespaces');
  // Each count leads to the list it counts.
  await jira.getByRole('cell').nth(4).getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/releases\\?ws=${ws.id}&prefix=jira%3A`));
  await expect(summary(page)).toHaveText('Releases 1–2 of 2');
});
