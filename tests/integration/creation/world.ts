// Shared setup for the creation tests: a workspace with a working-folder root, a real git repository, an agent
// profile, and helpers that upload attachments and count every effect a create can make (SPEC §5).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Actor } from '../../../src/server/domain/access';
import type { Db } from '../../../src/server/db/types';
import { createAgentProfile } from '../../../src/server/domain/agents/profiles';
import { uploadAttachment } from '../../../src/server/domain/attachments/upload';
import { addRepository } from '../../../src/server/domain/git-repos/registry';
import type { Services } from '../../../src/server/services';
import { expect } from 'vitest';
import { count, makeWorkspace, tokenActor, uniq, until, type TestWorkspace } from '../../support/fixtures';

export function makeGitRepo(): { path: string; head: string } {
  const path = mkdtempSync(join(tmpdir(), 'tether-repo-'));
  const run = (...args: string[]) => execFileSync('git', args, { cwd: path, encoding: 'utf8' }).trim();
  run('init', '-q', '-b', 'main');
  writeFileSync(join(path, 'README.md'), 'hello\n');
  run('add', '.');
  run('-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'init');
  return { path, head: run('rev-parse', 'HEAD') };
}

export function branchCommit(repoPath: string, branch: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      cwd: repoPath,
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
}

export function tetherBranches(repoPath: string): string[] {
  const out = execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/tether/'], {
    cwd: repoPath,
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

export interface World {
  ws: TestWorkspace;
  root: string;
  repo: { id: string; path: string; head: string };
  profileId: string;
  actor: Actor;
}

export async function makeWorld(
  services: Services,
  opts: { runner?: string; config?: Record<string, unknown> } = {},
): Promise<World> {
  const root = mkdtempSync(join(tmpdir(), 'tether-root-'));
  const ws = await makeWorkspace(services.store.driver, { rootPath: root });
  const git = makeGitRepo();
  const repo = await addRepository(services.store, { workspaceId: ws.id, path: git.path });
  const profile = await createAgentProfile(services.store, {
    workspaceId: ws.id,
    name: uniq('agent'),
    runner: opts.runner,
    config: opts.config,
  });
  return {
    ws,
    root,
    repo: { id: repo.id, path: git.path, head: git.head },
    profileId: profile.id,
    actor: tokenActor([ws.id]),
  };
}

export function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tether-data-'));
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function upload(services: Services, w: World): Promise<string> {
  const a = await uploadAttachment(services, w.actor, {
    workspaceId: w.ws.id,
    filename: 'notes.txt',
    data: Buffer.from(uniq('data')),
  });
  return a.id;
}

/** A create body that plans every step kind: folder, claim, branch, contribution, session + launch intent. */
export function fullBody(
  w: World,
  externalId: string,
  attachmentId: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    workspace_id: w.ws.id,
    external_id: externalId,
    title: `Task ${externalId}`,
    attachments: [attachmentId],
    repositories: [{ repository_id: w.repo.id, fresh_branch: true }],
    remote_contributions: [`https://GitHub.com/acme/app/pull/${Math.floor(Math.random() * 1e9)}/files`],
    start_agent: true,
    agent_profile_id: w.profileId,
    ...extra,
  };
}

export interface Effects {
  folder: boolean;
  branch: string | null;
  claims: number;
  contributions: number;
  sessions: number;
  intents: number;
  launches: number;
}

/** Every effect a create made for the task `taskId` with identifier `identifier`. */
export async function effectsOf(db: Db, w: World, taskId: string, identifier: string): Promise<Effects> {
  return {
    folder: existsSync(join(w.root, identifier)),
    branch: branchCommit(w.repo.path, `tether/${identifier}`),
    claims: await count(db, 'SELECT COUNT(*) AS n FROM attachments WHERE task_id = $1', [taskId]),
    contributions: await count(db, 'SELECT COUNT(*) AS n FROM remote_contributions WHERE task_id = $1', [taskId]),
    sessions: await count(db, 'SELECT COUNT(*) AS n FROM agent_sessions WHERE task_id = $1', [taskId]),
    intents: await count(db, 'SELECT COUNT(*) AS n FROM launch_intents WHERE task_id = $1', [taskId]),
    launches: await count(db, 'SELECT COUNT(*) AS n FROM agent_launches WHERE task_id = $1', [taskId]),
  };
}

/** SPEC §5: a completed create with every step kind made each effect exactly once, the agent launch included. */
export async function expectEveryEffectOnce(db: Db, w: World, task: { id: string; identifier: string }): Promise<void> {
  await until(
    async () => (await effectsOf(db, w, task.id, task.identifier)).launches === 1,
    10_000,
    'the agent launch',
  );
  expect(await effectsOf(db, w, task.id, task.identifier)).toEqual({
    folder: true,
    branch: w.repo.head,
    claims: 1,
    contributions: 1,
    sessions: 1,
    intents: 1,
    launches: 1,
  });
}

export async function operationOf(
  db: Db,
  taskId: string,
): Promise<{ id: string; state: string; error: string | null; generation: number }> {
  const row = await db.one<Record<string, unknown>>(
    'SELECT id, state, error, generation FROM creation_operations WHERE task_id = $1',
    [taskId],
  );
  if (!row) throw new Error(`no operation for ${taskId}`);
  return {
    id: String(row.id),
    state: String(row.state),
    error: row.error === null ? null : String(row.error),
    generation: Number(row.generation),
  };
}

/**
 * The lease the creating request took on the task's operation (generation 0), and on the steps it left `running`,
 * runs out now — as if that long had passed: recovery takes the operation over at its next poll (SPEC §6). For a test
 * that knows the request is done with it (it answered) and would otherwise sleep the lease out. An operation recovery
 * has already claimed (generation 1 and up) is left alone. Steps first: once the operation is claimed, its steps'
 * leases are the claimer's.
 */
export async function requestLeaseRunsOut(db: Db, taskId: string): Promise<void> {
  const past = new Date(Date.now() - 1).toISOString();
  await db.run(
    `UPDATE creation_steps SET lease_expires_at = $2 WHERE state = 'running' AND operation_id IN
       (SELECT id FROM creation_operations WHERE task_id = $1 AND generation = 0)`,
    [taskId, past],
  );
  await db.run(
    `UPDATE creation_operations SET lease_expires_at = $2
     WHERE task_id = $1 AND generation = 0 AND state IN ('preparing', 'completing', 'aborting')`,
    [taskId, past],
  );
}
