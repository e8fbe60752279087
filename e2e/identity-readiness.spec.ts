// SPEC §12 in the console: a workspace admin sees readiness on the settings page, re-attests on demand, and resolves a
// legacy identity row — then the stored row and its audit record are checked. The row is made the way an old build left
// it (straight in the database); the spec leaves nothing behind that blocks readiness.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import {
  chooseWorkspace,
  cli,
  databaseUrl,
  expect,
  expectAccessible,
  row,
  screenshot,
  type Seed,
  signIn,
  test,
} from './support/console';

/** A task holding an identity with no settlement and no creation operation, written as an old build would have. */
function insertLegacyRow(seed: Seed, externalId: string): { id: string; identifier: string } {
  const step = row<{ id: string }>(
    'SELECT id FROM workflow_steps WHERE workspace_id = ? ORDER BY position LIMIT 1',
    seed.workspaceId,
  )!;
  const number = 900_000 + Math.floor(Math.random() * 99_999);
  const task = { id: randomUUID(), identifier: `${seed.prefix}-${number}` };
  const db = new Database(databaseUrl().replace(/^file:/, ''), { fileMustExist: true, timeout: 10_000 });
  try {
    const now = new Date().toISOString();
    db.prepare(
      `INSERT INTO tasks (id, workspace_id, number, identifier, title, step_id, created_at, updated_at, revision, creation_state, external_id)
       VALUES (?, ?, ?, ?, 'Imported from the old tracker', ?, ?, ?, 1, 'completed', ?)`,
    ).run(task.id, seed.workspaceId, number, task.identifier, step.id, now, now, externalId);
  } finally {
    db.close();
  }
  return task;
}

test('an admin re-attests, sees the legacy row blocking readiness, settles it, and readiness returns', async ({
  page,
  seed,
}, testInfo) => {
  const externalId = `legacy:OLD-${Date.now()}`;
  const task = insertLegacyRow(seed, externalId);
  try {
    await signIn(page, seed.admin.email);
    await chooseWorkspace(page, seed.workspaceId);
    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Identity readiness' });
    await section.getByRole('button', { name: 'Re-attest now' }).click();
    await expect(section).toContainText('Not ready');
    await expect(section.getByRole('list', { name: 'Why not ready' })).toContainText('1 legacy task(s)');
    const legacy = section.getByRole('table', { name: 'Legacy identities' });
    await expect(legacy.getByRole('row', { name: new RegExp(task.identifier) })).toContainText(externalId);
    await expectAccessible(page);
    await screenshot(page, testInfo, 'identity-readiness-legacy');

    page.once('dialog', (d) => void d.accept());
    await legacy.getByRole('button', { name: `Settle ${task.identifier}` }).click();
    await expect(section).toContainText('Ready: external identities are served.');
    await expect(section).toContainText('No legacy identities in this workspace.');

    const stored = row<{ external_id: string; external_id_settled_at: string | null }>(
      'SELECT external_id, external_id_settled_at FROM tasks WHERE id = ?',
      task.id,
    )!;
    expect(stored.external_id).toBe(externalId);
    expect(stored.external_id_settled_at).not.toBeNull();
    expect(
      row('SELECT action, actor_id, source, external_id FROM legacy_resolutions WHERE task_id = ?', task.id),
    ).toEqual({
      action: 'settle',
      actor_id: seed.admin.id,
      source: 'console',
      external_id: externalId,
    });
    await expectAccessible(page);
    await screenshot(page, testInfo, 'identity-readiness-ready');
  } finally {
    // Never leave a row that blocks readiness for the specs that follow.
    if (row('SELECT id FROM legacy_resolutions WHERE task_id = ?', task.id) === undefined)
      cli(['identity', 'legacy', 'resolve', task.id, '--settle']);
  }
});

test('people who are not workspace admins do not get the section', async ({ page, seed }) => {
  await signIn(page, seed.operator.email, '/settings');
  await expect(page.getByText('Settings are for workspace admins.')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Identity readiness' })).toHaveCount(0);
});
