// SPEC §4.1 "Found outcomes have zero side effects" — the upstream data-loss guard: a retry carrying every
// effect-producing field and a changed title gets the stored task back and changes nothing at all.
import { readdirSync } from 'node:fs';
import { createTask } from '../../../src/server/domain/tasks/create-task';
import { addRepository } from '../../../src/server/domain/git-repos/registry';
import { dispatchLaunches } from '../../../src/server/runtime/dispatcher';
import { count, uniq } from '../../support/fixtures';
import { fullBody, makeGitRepo, tetherBranches, upload } from './world';
import { describe, expect, it as base } from './world-test';
import { EVENTS } from '../../support/events';

// Every row and folder a create can make, counted.
const it = base.extend('totals', { scope: 'file' }, async ({ db, w }) => async () => ({
  tasks: await count(db, 'SELECT COUNT(*) AS n FROM tasks'),
  operations: await count(db, 'SELECT COUNT(*) AS n FROM creation_operations'),
  claimed: await count(db, 'SELECT COUNT(*) AS n FROM attachments WHERE task_id IS NOT NULL'),
  contributions: await count(db, 'SELECT COUNT(*) AS n FROM remote_contributions'),
  sessions: await count(db, 'SELECT COUNT(*) AS n FROM agent_sessions'),
  intents: await count(db, 'SELECT COUNT(*) AS n FROM launch_intents'),
  launches: await count(db, 'SELECT COUNT(*) AS n FROM agent_launches'),
  revisions: await count(db, 'SELECT COUNT(*) AS n FROM task_revisions'),
  events: await count(db, `SELECT COUNT(*) AS n FROM ${EVENTS}`),
  folders: readdirSync(w.root).length,
}));

describe('Found has zero effects (SPEC §4.1)', () => {
  it('a retry with start_agent, attachments, a new repository with fresh_branch, a contribution and a changed title creates nothing and alters nothing', async ({
    db,
    services,
    w,
    totals,
  }) => {
    const ext = uniq('found-');
    const first = await createTask(services, w.actor, { workspace_id: w.ws.id, external_id: ext, title: 'Original' });
    const before = await db.one('SELECT * FROM tasks WHERE id = $1', [first.task.id]);
    const otherRepo = makeGitRepo();
    const repo = await addRepository(services.store, { workspaceId: w.ws.id, path: otherRepo.path });
    const attachment = await upload(services, w);
    const counts = await totals();

    const retry = await createTask(
      services,
      w.actor,
      fullBody(w, ext, attachment, {
        title: 'Changed title',
        repositories: [{ repository_id: repo.id, fresh_branch: true }],
      }),
    );
    await dispatchLaunches(services);

    expect(retry.kind).toBe('found_settled');
    expect(retry.task.id).toBe(first.task.id);
    expect(await db.one('SELECT * FROM tasks WHERE id = $1', [first.task.id])).toEqual(before);
    expect(await totals()).toEqual(counts);
    expect(tetherBranches(otherRepo.path)).toEqual([]);
    expect(
      await count(db, 'SELECT COUNT(*) AS n FROM attachments WHERE id = $1 AND task_id IS NULL', [attachment]),
    ).toBe(1);
  });
});
