// Test data made directly in the database (unique names per call), and actors for domain-level tests.
// HTTP-level tests make tokens and users through the real auth code instead.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Actor, Role, Scope } from '../../src/server/domain/access';
import type { Db } from '../../src/server/db/types';
import { createServices } from '../../src/server/create-services';
import { createTask } from '../../src/server/domain/tasks/create-task';
import type { Services } from '../../src/server/services';
import { loadConfig } from '../../src/server/config';
import { Failpoints } from '../../src/server/failpoints';
import { DestinationPolicy } from '../../src/server/domain/outbound/destinations';
import { AgentRunners } from '../../src/server/runtime/agent-runners';

export function uniq(prefix = 'x'): string {
  return `${prefix}${randomBytes(4).toString('hex')}`;
}

/**
 * `body` with one planned step (a remote contribution, SPEC §5): only such a create has a moment between Begin and
 * Complete to pause or crash at — a zero-step plan commits both as one transaction (SPEC §4.3) and is never unsettled.
 */
export function withPlannedStep<T extends Record<string, unknown>>(body: T): T & { remote_contributions: string[] } {
  return { ...body, remote_contributions: [`https://git.example/acme/app/pull/${uniq('')}`] };
}

export interface TestWorkspace {
  id: string;
  prefix: string;
  steps: Array<{ id: string; name: string; position: number }>;
}

/** A workspace with steps (default: Todo, Doing, Done — Done is a done step). */
export async function makeWorkspace(
  db: Db,
  opts: {
    name?: string;
    prefix?: string;
    rootPath?: string | null;
    steps?: Array<{ name: string; wipLimit?: number | null; isDone?: boolean }>;
  } = {},
): Promise<TestWorkspace> {
  const id = randomUUID();
  const prefix = opts.prefix ?? uniq('W').toUpperCase().slice(0, 8);
  const now = new Date().toISOString();
  await db.run(
    'INSERT INTO workspaces (id, name, prefix, task_sequence, root_path, created_at, updated_at) VALUES ($1, $2, $3, 0, $4, $5, $5)',
    [id, opts.name ?? `Workspace ${prefix}`, prefix, opts.rootPath ?? null, now],
  );
  const specs = opts.steps ?? [{ name: 'Todo' }, { name: 'Doing' }, { name: 'Done', isDone: true }];
  const steps = [];
  for (const [position, s] of specs.entries()) {
    const stepId = randomUUID();
    await db.run(
      'INSERT INTO workflow_steps (id, workspace_id, name, position, wip_limit, is_done, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
      [stepId, id, s.name, position, s.wipLimit ?? null, s.isDone ?? false, now],
    );
    steps.push({ id: stepId, name: s.name, position });
  }
  return { id, prefix, steps };
}

/** An actor for domain tests: a token with scopes on workspaces, or a user with roles. */
export function tokenActor(
  workspaceIds: string[],
  scopes: Scope[] = ['tasks:read', 'tasks:write', 'identities:release'],
): Actor {
  return {
    kind: 'token',
    id: `tok_${uniq()}`,
    label: 'test token',
    global: false,
    roles: new Map(),
    grants: new Set(workspaceIds),
    scopes: new Set(scopes),
  };
}

export function userActor(roles: Record<string, Role>, global = false): Actor {
  return {
    kind: 'user',
    id: `usr_${uniq()}`,
    label: 'test user',
    global,
    roles: new Map(Object.entries(roles)),
    grants: new Set(),
    scopes: new Set(),
  };
}

/** The built-in runner's command in tests that launch agents without saying what: a program that ends at once. */
export const NOOP_AGENT = [process.execPath, '-e', ''];

/** Services over a test database, attested and with failpoints enabled. */
export async function testServices(db: Db, overrides: Partial<Services> = {}): Promise<Services> {
  const config = overrides.config ?? { ...loadConfig(), failpointsEnabled: true };
  // SPEC §9: where outbound calls may go — public addresses, plus TETHER_WEBHOOK_ALLOWED_NETWORKS for tests whose
  // receivers listen on loopback.
  const destinations = overrides.destinations ?? new DestinationPolicy(config.webhooks.allowedNetworks);
  const services = createServices({
    config,
    db,
    destinations,
    failpoints: new Failpoints(true),
    // The built-in runner runs a real command per launch (README "Agents"): a no-op one unless the test chose one.
    agentRunners: new AgentRunners({ ...config.agents, command: config.agents.command ?? NOOP_AGENT }, destinations),
    ...overrides,
  });
  await services.readiness.refresh(db);
  return services;
}

export async function count(db: Db, sql: string, params: unknown[] = []): Promise<number> {
  const row = await db.one<{ n: unknown }>(sql, params);
  return Number(row?.n ?? 0);
}

/** Waits until `cond` holds (polling), or fails after `ms`. */
export async function until(cond: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** One task per (workspace, external id), created as an API token would; `"<workspace id>/<external id>"` → task id. */
export async function createIdentities(
  services: Services,
  entries: ReadonlyArray<readonly [TestWorkspace, string]>,
): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [ws, ext] of entries) {
    const out = await createTask(services, tokenActor([ws.id]), { workspace_id: ws.id, external_id: ext, title: ext });
    ids[`${ws.id}/${ext}`] = out.task.id;
  }
  return ids;
}
