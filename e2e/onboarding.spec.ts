// First-run onboarding: a server started on an empty database prints a one-time setup URL; it creates the first admin,
// and afterwards the same URL no longer works. Runs a server of its own on an empty database (not the worker's, which
// the other specs seed), because the URL is only ever printed on that server's stdout.
import { expect, test } from '@playwright/test';
import Database from 'better-sqlite3';
import { expectAccessible, screenshot } from './support/console';
import { startServer, type TetherServer } from './support/server';

let server: TetherServer | undefined;
let setupUrl = '';
let dbFile = '';

test.beforeAll(async () => {
  test.setTimeout(90_000);
  let printed!: (url: string) => void;
  const url = new Promise<string>((resolve) => (printed = resolve));
  // Without test hooks, like a first `npm start`: the setup line is logged at the default level.
  server = await startServer({
    testHooks: false,
    onLine: (line) => {
      // The line is a log entry (JSON when stdout is not a terminal): the token is base64url, so it ends at the quote.
      const m = /(http:\/\/[^\s"]+\/setup\?token=[A-Za-z0-9_-]+)/.exec(line);
      if (m) printed(m[1]!);
    },
  });
  dbFile = server.databaseUrl.replace(/^file:/, '');
  // Printed just after the server starts listening (src/server/main.ts): by now, or moments later.
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no setup URL printed; output so far:\n${server!.output().join('\n')}`)),
      60_000,
    );
  });
  setupUrl = await Promise.race([url, late]).finally(() => clearTimeout(timer));
});

test.afterAll(async () => {
  await server?.stop();
});

test('the printed setup URL creates the first admin once, then stops working', async ({ page }, testInfo) => {
  await page.goto(setupUrl);
  await expect(page.getByRole('heading', { name: 'Create the first admin' })).toBeVisible();
  await expect(page.getByLabel('Email')).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, testInfo, 'setup');

  await page.getByLabel('Email').fill('First.Admin@Example.test');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create admin and sign in' }).click();
  // Signed in straight away, on the overview.
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.getByText('first.admin@example.test')).toBeVisible();

  const db = new Database(dbFile, { readonly: true });
  try {
    const users = db.prepare('SELECT email, is_admin, password_hash FROM users').all() as Array<{
      email: string;
      is_admin: number;
      password_hash: string;
    }>;
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ email: 'first.admin@example.test', is_admin: 1 });
    expect(users[0]!.password_hash).not.toContain('a long enough password');
    const tokens = db.prepare('SELECT used_at FROM setup_tokens').all() as Array<{ used_at: string | null }>;
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.used_at).not.toBeNull();
  } finally {
    db.close();
  }

  // The same link again, from a browser with no session: refused in plain words.
  await page.context().clearCookies();
  await page.goto(setupUrl);
  await expect(page.getByText('This setup link is not valid.')).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveCount(0);

  // And the API refuses it too, so no second admin can be made by skipping the page.
  const res = await page.request.post(`${new URL(setupUrl).origin}/api/trpc/session.setup`, {
    data: {
      token: new URL(setupUrl).searchParams.get('token'),
      email: 'second@example.test',
      password: 'another long password',
    },
  });
  expect(res.status()).toBe(404);
});

// Right after setup the only admin must not be told "You are not a member of any workspace yet. Ask an admin to add
// you." — and the console could not create a workspace. Now they create it (and its first token, shown once) there.
test('right after setup, the first admin creates a workspace and its first token in the console', async ({
  page,
}, testInfo) => {
  const origin = new URL(setupUrl).origin;
  await page.goto(`${origin}/signin`);
  await page.getByLabel('Email').fill('first.admin@example.test');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Create your first workspace' })).toBeVisible();
  await expect(page.getByText('Ask an admin to add you')).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, testInfo, 'first-workspace-form');

  await page.getByLabel('Name').fill('Operations');
  await page.getByLabel(/Task prefix/).fill('ops');
  await expect(page.getByLabel(/Task prefix/)).toHaveValue('OPS');
  await page.getByRole('button', { name: 'Create workspace' }).click();
  const token = page.getByTestId('new-token');
  await expect(token).toBeVisible();
  const secret = (await token.textContent())!;
  await expectAccessible(page);
  await screenshot(page, testInfo, 'first-workspace-token');

  let workspaceId = '';
  const db = new Database(dbFile, { readonly: true });
  try {
    const ws = db.prepare('SELECT id, name, prefix FROM workspaces').all() as Array<{
      id: string;
      name: string;
      prefix: string;
    }>;
    expect(ws).toEqual([{ id: expect.any(String), name: 'Operations', prefix: 'OPS' }]);
    workspaceId = ws[0]!.id;
    const tokens = db
      .prepare('SELECT t.secret_hash, g.workspace_id FROM api_tokens t JOIN api_token_grants g ON g.token_id = t.id')
      .all() as Array<{ secret_hash: string; workspace_id: string }>;
    expect(tokens).toEqual([{ secret_hash: expect.any(String), workspace_id: workspaceId }]);
    expect(tokens[0]!.secret_hash).not.toContain(secret);
  } finally {
    db.close();
  }

  // The token works against the API, and the console opens on the new workspace.
  const created = await page.request.post(`${origin}/api/v1/tasks`, {
    headers: { authorization: `Bearer ${secret}` },
    data: { workspace_id: workspaceId, title: 'First task' },
  });
  expect(created.status()).toBe(200);
  await page.getByRole('button', { name: /open the console/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Overview' })).toBeVisible();
  await expect(page.getByLabel('Workspace')).toHaveValue(workspaceId);
  await expect(page.getByRole('link', { name: /^1 tasks/ })).toBeVisible();
});
