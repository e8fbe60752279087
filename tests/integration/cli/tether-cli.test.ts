// The `tether` admin CLI end to end, as a real child process against a fresh database of the
// running dialect. Errors must be one line on stderr with a non-zero exit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../../src/server/auth/authenticate';
import { can } from '../../../src/server/domain/access';
import { openDb } from '../../../src/server/db/drivers';
import { Store } from '../../../src/server/db/store';
import { checkUserPassword } from '../../../src/server/domain/users/check-password';
import { freshDatabaseUrl } from '../../support/db';
import { TokenCache } from '../../../src/server/domain/tokens/token-cache';
import { runCommand, runTether, type CommandRun as Run } from '../../support/processes';

describe('tether CLI', () => {
  let url: string;
  let store: Store;
  let workspaceId: string;
  const env = () => ({ DATABASE_URL: url });
  const tether = (args: string[], input = '') => runTether(args, env(), input);
  const json = <T>(r: Run): T => {
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    return JSON.parse(r.stdout) as T;
  };

  beforeAll(async () => {
    url = await freshDatabaseUrl();
    store = new Store(openDb(url));
  });
  afterAll(async () => store?.close());

  it('migrates a fresh database and reports the version', async () => {
    const out = json<{ applied: string[]; version: number; ready: boolean }>(await tether(['migrate', '--json']));
    expect(out.applied[0]).toBe('20261130000001_init');
    expect(out.version).toBeGreaterThanOrEqual(1);
    expect(out.ready).toBe(true);
  });

  it('creates a workspace with default steps and lists it as JSON', async () => {
    const created = json<{ id: string; prefix: string; steps: Array<{ name: string }> }>(
      await tether(['workspace', 'create', '--name', 'Operations', '--prefix', 'OPS', '--json']),
    );
    workspaceId = created.id;
    expect(created.steps.map((s) => s.name)).toEqual(['Todo', 'Doing', 'Done']);
    const listed = json<Array<{ id: string; prefix: string; name: string }>>(
      await tether(['workspace', 'list', '--json']),
    );
    expect(listed).toContainEqual(expect.objectContaining({ id: workspaceId, prefix: 'OPS', name: 'Operations' }));
  });

  it('appends a step with a WIP limit', async () => {
    const step = json<{ position: number; wip_limit: number; is_done: boolean }>(
      await tether(['step', 'create', '--workspace', workspaceId, '--name', 'Review', '--wip-limit', '3', '--json']),
    );
    expect(step).toMatchObject({ position: 3, wip_limit: 3, is_done: false });
  });

  it('creates a user whose password comes from stdin', async () => {
    const user = json<{ email: string; memberships: unknown[] }>(
      await tether(
        [
          'user',
          'create',
          '--email',
          'Op@Example.com',
          '--role',
          'operator',
          '--workspace',
          workspaceId,
          '--password-stdin',
          '--json',
        ],
        'a long password\n',
      ),
    );
    expect(user).toMatchObject({
      email: 'op@example.com',
      memberships: [{ workspace_id: workspaceId, role: 'operator' }],
    });
    expect(await checkUserPassword(store, 'op@example.com', 'a long password')).not.toBeNull();
  });

  it('prints a token once that authenticate then accepts with its scopes', async () => {
    const r = await runCommand(
      'node',
      [
        'bin/tether.js',
        'token',
        'create',
        '--name',
        'ci',
        '--workspace',
        workspaceId,
        '--scope',
        'tasks:read,tasks:write',
      ],
      env(),
    );
    expect(r.code).toBe(0);
    const token = r.stdout.trim();
    expect(token).toMatch(/^tth_/);
    const auth = await authenticate(
      { store, tokenCache: new TokenCache(0) },
      { authorization: `Bearer ${token}` },
      { method: 'POST' },
    );
    expect(auth?.actor.kind).toBe('token');
    expect([can(auth!.actor, workspaceId, 'write'), can(auth!.actor, workspaceId, 'release')]).toEqual([true, false]);
    const listed = await tether(['token', 'list', '--json']);
    expect(listed.stdout).not.toContain(token.split('_').slice(2).join('_'));
  });

  it('exits non-zero with one line on stderr for a bad argument', async () => {
    const r = await tether(['step', 'create', '--workspace', workspaceId, '--name', 'X', '--wip-limit', 'many']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^error: .*--wip-limit/);
  });

  it('exits non-zero with one line on stderr for a domain error (duplicate prefix)', async () => {
    const r = await tether(['workspace', 'create', '--name', 'Again', '--prefix', 'OPS']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: conflict: workspace prefix OPS is already in use\n');
    expect(r.stdout).toBe('');
  });
});
