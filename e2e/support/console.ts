// Shared helpers for the console specs: the worker's own server (e2e/support/server.ts), seeding through the real CLI
// and REST API against that server's database, reading the stored rows straight from its SQLite file, signing in by
// label, and axe. Nothing here reaches into server code.
import { test as base, expect, type Cookie, type Page, type TestInfo } from '@playwright/test';
import type axe from 'axe-core';
import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BatchArg, BatchCommand } from './cli-batch';
import { startServer, type TetherServer } from './server';

declare global {
  interface Window {
    axe: typeof axe;
  }
}

export const PASSWORD = 'correct horse battery staple';

/** This worker's server (the `server` fixture below sets it before the worker's first hook or test). */
let active: TetherServer | undefined;

function activeServer(): TetherServer {
  if (!active) throw new Error("no test server in this worker: import `test` from './support/console'");
  return active;
}

/** `http://127.0.0.1:<port>` of this worker's server. */
export function baseUrl(): string {
  return activeServer().url;
}

/** `file:<path>` of this worker's database. */
export function databaseUrl(): string {
  return activeServer().databaseUrl;
}

/** `tether … --json` against the e2e database, as a process of its own. */
export function cli<T = Record<string, unknown>>(args: string[], stdin?: string): T {
  // The CLI bundled from src/cli once per run (playwright.config.ts, TETHER_E2E_CLI).
  return JSON.parse(runNode(process.env.TETHER_E2E_CLI!, ['--json', ...args], stdin, `tether ${args.join(' ')}`)) as T;
}

/**
 * Several `tether … --json` command lines against the e2e database in one process (e2e/support/cli-batch.ts: the CLI's
 * own program run once per line), their answers in order: a seeding of five commands costs one start instead of five.
 * An argument `ref(i)` is the id the i-th command answered. makeSeed and the specs' beforeAll seed this way.
 */
export function cliBatch<T extends unknown[]>(commands: BatchCommand[]): T {
  const what = `tether batch of ${commands.map((c) => c.args.slice(0, 2).join(' ')).join(', ')}`;
  return JSON.parse(runNode(process.env.TETHER_E2E_CLI_BATCH!, [], JSON.stringify(commands), what)) as T;
}

/** In a cliBatch command: the id the `from`-th command of the batch answered. */
export const ref = (from: number): BatchArg => ({ from, key: 'id' });

/** Runs a script bundled by playwright.config.ts on the e2e database and returns its stdout. */
function runNode(script: string, args: string[], stdin: string | undefined, what: string): string {
  // `--liftoff-only`: WebAssembly (Prisma's query compiler) compiled by V8's baseline tier only — the optimising tier
  // does not pay off in a process that runs a few queries; it halves a seeding process's CPU (~2.0 → ~1.2 s).
  const r = spawnSync(process.execPath, ['--liftoff-only', script, ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl() },
    input: stdin,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`${what} failed: ${r.stderr}`);
  return r.stdout;
}

/** The SQLite file the server writes, opened read-only so the checks cannot change what they check. */
export function openDb(): Database.Database {
  return new Database(databaseUrl().replace(/^file:/, ''), { readonly: true, fileMustExist: true });
}

export function row<T>(sql: string, ...params: unknown[]): T | undefined {
  const db = openDb();
  try {
    return db.prepare(sql).get(...params) as T | undefined;
  } finally {
    db.close();
  }
}

export function rows<T>(sql: string, ...params: unknown[]): T[] {
  const db = openDb();
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

export interface Seed {
  workspaceId: string;
  prefix: string;
  token: string;
  admin: { id: string; email: string };
  operator: { id: string; email: string };
  viewer: { id: string; email: string };
}

/**
 * One workspace with a working-folder root (so every create plans a `workspace_attachment` step, SPEC §5), an
 * instance-wide admin, an operator and a viewer, and a `tasks:write` token for seeding tasks over REST.
 */
export function seedWorkspace(tag: string): Seed {
  // One seed per worker's database: every spec file the worker runs shares it (the CLI is slow to start on a busy
  // machine). Specs use unique external ids, so sharing a workspace never couples them. Cached next to the database.
  const cache = join(dirname(databaseUrl().replace(/^file:/, '')), 'seed.json');
  if (existsSync(cache)) return JSON.parse(readFileSync(cache, 'utf8')) as Seed;
  const seed = makeSeed(tag);
  writeFileSync(cache, JSON.stringify(seed));
  return seed;
}

/** How many of the server's lines a failed test prints (all it wrote during the test go to a file beside its trace). */
const FAILURE_LINES = 40;

/**
 * Playwright's `test` with this worker's own server and the worker's shared workspace.
 *
 * - `server` (worker, automatic): the built server with test hooks on its own SQLite file and a free loopback port
 *   (e2e/support/server.ts), started before the worker's first hook or test and stopped (SIGTERM) when the worker ends.
 *   Two workers never share a database, a failpoint or a session. `baseURL` is its address; baseUrl(), databaseUrl()
 *   and every helper here use it. If it dies, its last lines are printed at once.
 * - `serverOutput` (test, automatic): a failed test prints the lines the server wrote while it ran and attaches them
 *   whole (`server-output.txt`).
 * - `seed` (worker): the worker's shared workspace (seedWorkspace), made before the worker's first test that asks for it.
 *
 *   import { expect, test } from './support/console';
 *   test('finds', async ({ page, seed }) => { await signIn(page, seed.operator.email); });
 */
export const test = base.extend<{ serverOutput: void }, { server: TetherServer; seed: Seed }>({
  server: [
    // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern; none here
    async ({}, use, workerInfo) => {
      const server = await startServer({
        testHooks: true,
        onUnexpectedExit: (reason, lines) =>
          console.error(
            `\nThe test server of worker ${workerInfo.workerIndex} exited (${reason}); its last lines:\n${lines.join('\n')}\n`,
          ),
      });
      active = server;
      try {
        await use(server);
      } finally {
        active = undefined;
        await server.stop();
      }
    },
    { scope: 'worker', auto: true, timeout: 150_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  serverOutput: [
    async ({ server }, use, testInfo) => {
      const mark = server.linesWritten();
      await use();
      if (testInfo.status === testInfo.expectedStatus) return;
      const written = server.linesWritten() - mark;
      // At most the lines the server keeps (e2e/support/server.ts).
      const lines = written === 0 ? [] : server.output().slice(-written);
      const file = testInfo.outputPath('server-output.txt');
      writeFileSync(file, lines.join('\n') + '\n');
      await testInfo.attach('server output', { path: file, contentType: 'text/plain' });
      const shown = lines.slice(-FAILURE_LINES);
      console.error(
        lines.length === 0
          ? 'The test server wrote nothing during this test.'
          : `The test server's last ${shown.length} of ${lines.length} lines during this test:\n${shown.join('\n')}`,
      );
    },
    { auto: true },
  ],
  // Set up after `server` (automatic fixtures come first).
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern; none here
  seed: [async ({}, use) => use(seedWorkspace('E2E')), { scope: 'worker' }],
});
export { expect };

/** A workspace of its own, for a spec that counts what a workspace holds (seedWorkspace shares one per run). */
export function makeSeed(tag: string): Seed {
  const ws = workspaceCommand(tag, mkdtempSync(join(tmpdir(), 'tether-e2e-root-')));
  const email = (role: string) => `${role}.${ws.prefix.toLowerCase()}@example.test`;
  type User = { id: string; email: string };
  const [{ id: workspaceId }, admin, operator, viewer, { token }] = cliBatch<
    [{ id: string }, User, User, User, { token: string }]
  >([
    ws.command,
    userCommand(email('admin'), 'admin', []),
    userCommand(email('operator'), 'operator', [ref(0)]),
    userCommand(email('viewer'), 'viewer', [ref(0)]),
    tokenCommand(`e2e ${ws.prefix}`, [ref(0)], ['tasks:write']),
  ]);
  return { workspaceId, prefix: ws.prefix, token, admin, operator, viewer };
}

/**
 * The `workspace create` command for a new workspace named after `tag` (a random suffix makes the prefix unique), with
 * `root` as its working-folder root, or none (then its plain creates plan no step and commit at once, SPEC §4.3).
 */
export function workspaceCommand(tag: string, root?: string): { command: BatchCommand; prefix: string; name: string } {
  const suffix = Math.random()
    .toString(36)
    .slice(2, 7)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'X');
  const prefix = `${tag}${suffix}`.slice(0, 10);
  const name = `E2E ${prefix}`;
  const args = [
    'workspace',
    'create',
    '--name',
    name,
    '--prefix',
    prefix,
    ...(root === undefined ? [] : ['--root', root]),
  ];
  return { command: { args }, prefix, name };
}

/** A unique email for a person with `role`, named after `tag`. */
export function userEmail(tag: string, role: string): string {
  return `${role}.${tag.toLowerCase()}.${Math.random().toString(36).slice(2, 7)}@example.test`;
}

/** The `user create` command for `email` with `role` in each of `workspaces` (password PASSWORD). */
export function userCommand(
  email: string,
  role: 'viewer' | 'operator' | 'admin',
  workspaces: BatchArg[],
): BatchCommand {
  return {
    args: [
      'user',
      'create',
      '--email',
      email,
      '--role',
      role,
      ...workspaces.flatMap((w) => ['--workspace', w]),
      '--password-stdin',
    ],
    stdin: PASSWORD,
  };
}

/** The `token create` command for a token named `name` on `workspaces` with `scopes`. */
export function tokenCommand(name: string, workspaces: BatchArg[], scopes: string[]): BatchCommand {
  return {
    args: [
      'token',
      'create',
      '--name',
      name,
      ...workspaces.flatMap((w) => ['--workspace', w]),
      ...scopes.flatMap((s) => ['--scope', s]),
    ],
  };
}

/** An API token named `name` on `workspaceIds` with `scopes`. */
export function makeApiToken(name: string, workspaceIds: string[], scopes: string[]): string {
  return cli<{ token: string }>(tokenCommand(name, workspaceIds, scopes).args as string[]).token;
}

/** The stored digest of the session cookie the browser holds (src/server/auth/session.ts keeps sha256 only). */
export async function sessionDigest(page: Page): Promise<string> {
  const cookie = (await page.context().cookies()).find((c) => c.name === 'tether_session');
  if (!cookie) throw new Error('no session cookie');
  return createHash('sha256').update(decodeURIComponent(cookie.value), 'utf8').digest('hex');
}

export async function api(
  method: string,
  path: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${baseUrl()}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function createTask(seed: Seed, externalId: string | null, title = `Task for ${externalId ?? 'nothing'}`) {
  const r = await api('POST', '/tasks', seed.token, {
    workspace_id: seed.workspaceId,
    title,
    ...(externalId === null ? {} : { external_id: externalId }),
  });
  expect(r.status).toBe(200);
  return r.body as { id: string; identifier: string; external_id?: string };
}

export async function armFailpoint(arm: {
  name: string;
  action: 'pause' | 'error';
  match?: string;
  times?: number;
}): Promise<void> {
  const res = await fetch(`${baseUrl()}/api/_test/failpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ arm }),
  });
  expect(res.status).toBe(200);
}

export async function releaseFailpoint(name: string): Promise<void> {
  await fetch(`${baseUrl()}/api/_test/failpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ release: name }),
  });
}

/** Signs in through the form (a new session) and waits for the console to show who is signed in. */
export async function signInWithForm(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/**
 * Signs in as `email`, opens `at` (a console page; the Overview unless told) and waits for the console to show who is
 * signed in. Each person signs in through the form once a run; later calls hand the browser that session's cookie
 * (kept next to the run's database file) and open `at` directly: one page load instead of three and no password hash.
 * A session that no longer works (signed out) is replaced through the form. A spec about sessions themselves (signing
 * out, the session row) uses signInWithForm; a test that opens its first page itself uses useSession.
 */
export async function signIn(page: Page, email: string, at = '/'): Promise<void> {
  const held = heldSessions()[email];
  if (held) {
    await page.context().addCookies(held);
    await page.goto(at);
    if (!new URL(page.url()).pathname.startsWith('/signin')) {
      await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
      return;
    }
    await page.context().clearCookies();
  }
  await signInWithForm(page, email);
  keepSession(email, await page.context().cookies());
  if (at !== '/') {
    await page.goto(at);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  }
}

/**
 * Gives the browser `email`'s session without opening a page, for a test whose first page load is its own (with its
 * listeners, its status check, its viewport): the held session's cookie, checked with one `session.me` request instead
 * of a page load. With no held session, or one that no longer works, it signs in like signIn (through the form, on
 * the Overview).
 */
export async function useSession(page: Page, email: string): Promise<void> {
  const held = heldSessions()[email];
  if (held) {
    await page.context().addCookies(held);
    const me = await page.request.get('/api/trpc/session.me');
    if (me.ok() && (await me.text()).includes(JSON.stringify(email))) return;
    await page.context().clearCookies();
  }
  await signIn(page, email);
}

/** The session cookies signIn keeps per person, next to the worker's database file. */
const sessionsFile = () => join(dirname(databaseUrl().replace(/^file:/, '')), 'sessions.json');

function heldSessions(): Record<string, Cookie[]> {
  const file = sessionsFile();
  return (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Record<string, Cookie[]>;
}

function keepSession(email: string, cookies: Cookie[]): void {
  writeFileSync(sessionsFile(), JSON.stringify({ ...heldSessions(), [email]: cookies }));
}

/** Points the console at the spec's workspace (an instance-wide admin sees every spec's workspaces). */
export async function chooseWorkspace(page: Page, workspaceId: string): Promise<void> {
  await page.getByLabel('Workspace').selectOption(workspaceId);
}

/**
 * axe-core's minified build (axe.min.js, 0.65 MB): the same code and rules as its unminified build (`axe.source`,
 * 1.5 MB, what @axe-core/playwright injects), cheaper to hand to every document and for the page to parse.
 */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * SPEC-independent quality bar: no serious or critical axe violations on the page as it is now. Every axe rule runs, in
 * the page, on what it shows (axe-core's own build, minified: AXE_SOURCE): one injection and one
 * `axe.run`, instead of that package's per-frame partial runs finished in a second, blank page with axe injected
 * again — the console has no frames. Only violations are gathered in full (`resultTypes`); passes are not listed.
 */
export async function expectAccessible(page: Page): Promise<void> {
  // Once per document: a later check on the same document (after client-side navigation) runs the axe already there.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { violations } = await window.axe.run(document, { resultTypes: ['violations'] });
    return violations.map((v) => ({
      id: v.id,
      help: v.help,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.targets.join(', ')})`)).toEqual([]);
}

/** The tallest full-page screenshot taken: a longer page is captured from its top to this height. */
const SCREENSHOT_MAX_HEIGHT = 6_000;

/**
 * Saves a picture of the page under the test's output folder for a reader of the run (no assertion reads it): the whole
 * page, or its first SCREENSHOT_MAX_HEIGHT pixels — at 390 px the API reference is tens of thousands of pixels tall,
 * and capturing all of it took longer than the rest of its test.
 */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const size = await page.evaluate(() => ({
    width: document.documentElement.clientWidth,
    height: document.documentElement.scrollHeight,
  }));
  await page.screenshot({
    path: testInfo.outputPath(`${name}.png`),
    fullPage: true,
    ...(size.height > SCREENSHOT_MAX_HEIGHT
      ? { clip: { x: 0, y: 0, width: size.width, height: SCREENSHOT_MAX_HEIGHT } }
      : {}),
  });
}

/** Waits until a create is paused at failpoint `name` (GET /api/_test/failpoints lists how many wait there). */
export async function waitForPause(name: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const res = await fetch(`${baseUrl()}/api/_test/failpoints`);
        const { failpoints } = (await res.json()) as { failpoints: Array<{ name: string; paused: number }> };
        return failpoints.find((f) => f.name === name)?.paused ?? 0;
      },
      { intervals: [50] },
    )
    .toBeGreaterThan(0);
}
