// SPEC §7 / §13: the release dialog says in plain words that the holder's create is being undone (409
// creation_aborting), changes nothing, and — once the abort has removed the task — a retry with the same key finds
// nothing holding the identity. The create fails for real: its workspace's working-folder root lies under a plain file,
// so the folder step cannot be made; a failpoint holds the abort after compensation.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  armFailpoint,
  baseUrl,
  chooseWorkspace,
  cliBatch,
  expect,
  expectAccessible,
  releaseFailpoint,
  ref,
  row,
  rows,
  screenshot,
  signIn,
  test,
  tokenCommand,
} from './support/console';

test('releasing while the holder’s create is being undone is refused in plain words; after the abort nothing holds it', async ({
  page,
  seed,
}, testInfo) => {
  const file = join(mkdtempSync(join(tmpdir(), 'tether-e2e-file-')), 'not-a-folder');
  writeFileSync(file, '');
  const prefix = `AB${Math.random()
    .toString(36)
    .slice(2, 6)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X')}`;
  const [ws, { token }] = cliBatch<[{ id: string }, { token: string }]>([
    { args: ['workspace', 'create', '--name', `Aborting ${prefix}`, '--prefix', prefix, '--root', join(file, 'root')] },
    tokenCommand(`e2e ${prefix}`, [ref(0)], ['tasks:write']),
  ]);
  const externalId = `doomed:${Date.now()}`;

  await armFailpoint({ name: 'abort_before_remove', action: 'pause', match: externalId });
  const create = fetch(`${baseUrl()}/api/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ workspace_id: ws.id, external_id: externalId, title: 'Doomed create' }),
  });
  try {
    await expect
      .poll(
        () =>
          row<{ state: string }>(
            'SELECT state FROM creation_operations WHERE workspace_id = ? AND external_id = ?',
            ws.id,
            externalId,
          )?.state,
      )
      .toBe('aborting');
    const task = row<{ id: string; identifier: string }>(
      'SELECT id, identifier FROM tasks WHERE workspace_id = ? AND external_id = ?',
      ws.id,
      externalId,
    )!;

    await signIn(page, seed.admin.email);
    await chooseWorkspace(page, ws.id);
    await page.goto(`/tasks/${task.id}`);
    await page.getByRole('button', { name: 'Release identity…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Release external identity' });
    await expect(dialog).toContainText('aborting');
    await expect(dialog).toContainText('being undone right now');
    await dialog.getByLabel('Type the external id exactly to confirm').fill(externalId);
    const key = (await dialog.getByTestId('idempotency-key').textContent())!;
    await dialog.getByRole('button', { name: 'Release', exact: true }).click();
    await expect(dialog.getByRole('status')).toContainText('Creation being undone — try again.');
    await expect(dialog.getByRole('status')).toContainText('nothing changed');
    await expectAccessible(page);
    await screenshot(page, testInfo, 'release-aborting');
    // Nothing changed, nothing stored as final.
    expect(row('SELECT external_id FROM tasks WHERE id = ?', task.id)).toEqual({ external_id: externalId });
    expect(rows('SELECT id FROM release_operations WHERE idempotency_key = ?', key)).toEqual([]);

    // The abort finishes; the retry (same key) finds nothing holding the identity.
    await releaseFailpoint('abort_before_remove');
    expect((await create).status).toBe(500);
    await dialog.getByRole('button', { name: 'Retry release' }).click();
    await expect(dialog.getByRole('status')).toContainText('Nothing holds it.');
    expect(
      rows<{ result_status: number }>('SELECT result_status FROM release_operations WHERE idempotency_key = ?', key),
    ).toEqual([{ result_status: 404 }]);
  } finally {
    await releaseFailpoint('abort_before_remove');
    await create.catch(() => undefined);
  }
});
