// Live updates in the console (SPEC §9, §13): a page on screen learns of a change from the event subscription (tRPC
// over SSE), not by polling — a task created elsewhere appears without reload, and the task list was not refetched in
// between.
import type { Request } from '@playwright/test';
import { createTask, expect, test, useSession } from './support/console';

const isTaskList = (r: Request) => r.url().includes('/api/trpc/') && r.url().includes('console.tasks');

test('a task created through the REST API appears on the open tasks page by event, without reload or polling', async ({
  page,
  seed,
}) => {
  const before = await createTask(seed, `live-before-${Date.now()}`, 'Already there');
  await useSession(page, seed.operator.email);
  const stream = page.waitForRequest((r) => r.url().includes('/api/trpc/event.onEvent'));
  await page.goto('/tasks');
  await stream;
  const live = page.getByRole('status').filter({ hasText: 'Live' });
  await expect(live).toBeVisible();
  await expect(page.getByRole('row', { name: new RegExp(`${before.identifier}\\b`) })).toBeVisible();
  const box = await live.boundingBox();

  // Going live refetches once (to catch up); after that the list stays quiet: no periodic polling.
  await page.waitForTimeout(1_000);
  const listFetches: number[] = [];
  page.on('request', (r) => {
    if (isTaskList(r)) listFetches.push(Date.now());
  });
  await page.waitForTimeout(3_000);
  expect(listFetches).toEqual([]);

  let navigated = false;
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) navigated = true;
  });
  const createdAt = Date.now();
  const task = await createTask(seed, `live-${Date.now()}`, 'Created while watching');
  await expect(page.getByRole('row', { name: new RegExp(`${task.identifier}\\b`) })).toBeVisible({ timeout: 5_000 });

  // It came from the event: one burst of refetches after the create, the page was never reloaded, still live,
  // and the indicator did not move (fixed size: no layout shift in the header).
  expect(listFetches.length).toBeGreaterThanOrEqual(1);
  expect(listFetches.every((t) => t >= createdAt)).toBe(true);
  expect(navigated).toBe(false);
  await expect(live).toBeVisible();
  expect(await live.boundingBox()).toEqual(box);
});
