// SPEC §4.4 in the console: a compensation an aborted create could not finish is retried by the runtime, shown on the
// Operations page as "keeps failing" once tried three times, and gone from there once a retry succeeds — then the
// stored step says so. The create fails for real (a contribution URL another task holds); the `compensate` failpoint
// makes removing its folder fail until it is released.
import {
  api,
  armFailpoint,
  chooseWorkspace,
  expect,
  expectAccessible,
  releaseFailpoint,
  row,
  screenshot,
  signIn,
  test,
} from './support/console';

test('a compensation that keeps failing is shown on the Operations page until a retry succeeds', async ({
  page,
  seed,
}, testInfo) => {
  const url = `https://git.example.com/acme/app/pull/${Date.now()}`;
  expect(
    (
      await api('POST', '/tasks', seed.token, {
        workspace_id: seed.workspaceId,
        title: 'holder',
        remote_contributions: [url],
      })
    ).status,
  ).toBe(200);
  const externalId = `cleanup:${Date.now()}`;
  await armFailpoint({ name: 'compensate', action: 'error', match: `${externalId}#0` });
  try {
    const failed = await api('POST', '/tasks', seed.token, {
      workspace_id: seed.workspaceId,
      external_id: externalId,
      title: 'doomed',
      remote_contributions: [url],
    });
    expect(failed.status).toBe(409);
    const op = row<{ id: string }>(
      'SELECT id FROM creation_operations WHERE workspace_id = ? AND external_id = ?',
      seed.workspaceId,
      externalId,
    )!;
    await expect
      .poll(
        () =>
          row<{ n: number }>(
            'SELECT compensation_attempts AS n FROM creation_steps WHERE operation_id = ? AND step_index = 0',
            op.id,
          )?.n ?? 0,
      )
      .toBeGreaterThanOrEqual(3);

    await signIn(page, seed.operator.email);
    await chooseWorkspace(page, seed.workspaceId);
    await page.goto('/operations');
    const panel = page.getByRole('region', { name: 'Compensations waiting for cleanup' });
    const line = panel.getByRole('row', { name: new RegExp(op.id.slice(0, 8)) });
    await expect(line).toContainText('keeps failing');
    await expect(line).toContainText('workspace_attachment');
    await expect(line).toContainText('failpoint compensate');
    await expectAccessible(page);
    await screenshot(page, testInfo, 'operations-cleanup');

    await releaseFailpoint('compensate');
    await expect(panel).toContainText('Nothing is waiting for cleanup.', { timeout: 30_000 });
    expect(
      row(
        'SELECT compensation_state, compensation_error FROM creation_steps WHERE operation_id = ? AND step_index = 0',
        op.id,
      ),
    ).toEqual({
      compensation_state: 'compensated',
      compensation_error: null,
    });
  } finally {
    await releaseFailpoint('compensate');
  }
});
