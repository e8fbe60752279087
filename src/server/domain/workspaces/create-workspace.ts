// Creates a workspace with its default workflow (SPEC §1: every workspace has at least one step; a create
// without step_id lands in the first).
import { randomUUID } from 'node:crypto';
import { isAbsolute, normalize } from 'node:path';
import type { Actor } from '../access';
import type { Store } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { isUniqueViolationOf } from './unique-violation';
import type { WorkflowStep, Workspace } from './workspace';

export interface CreateWorkspaceInput {
  name: string;
  /** Identifier prefix (`OPS` → tasks `OPS-1`, `OPS-2`, …): 1-10 characters A-Z or 0-9. */
  prefix: string;
  /** Optional working-folder root (SPEC §5 workspace_attachment); an absolute path. */
  rootPath?: string | null;
}

const PREFIX = /^[A-Z0-9]{1,10}$/;
const DEFAULT_STEPS = [
  { name: 'Todo', isDone: false },
  { name: 'Doing', isDone: false },
  { name: 'Done', isDone: true },
] as const;

export async function createWorkspace(
  store: Store,
  input: CreateWorkspaceInput,
): Promise<Workspace & { steps: WorkflowStep[] }> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new DomainError('validation_failed', 'workspace name must be 1-200 characters');
  if (!PREFIX.test(input.prefix))
    throw new DomainError('validation_failed', 'prefix must be 1-10 characters, uppercase A-Z or 0-9');
  const rootPath = input.rootPath?.trim() ? normalize(input.rootPath.trim()) : null;
  if (rootPath !== null && !isAbsolute(rootPath))
    throw new DomainError('validation_failed', 'root path must be absolute');

  const now = new Date().toISOString();
  const workspace: Workspace = {
    id: randomUUID(),
    name,
    prefix: input.prefix,
    taskSequence: 0,
    rootPath,
    createdAt: now,
    updatedAt: now,
  };
  const steps: WorkflowStep[] = DEFAULT_STEPS.map((s, position) => ({
    id: randomUUID(),
    workspaceId: workspace.id,
    name: s.name,
    position,
    wipLimit: null,
    isDone: s.isDone,
    createdAt: now,
  }));
  try {
    await store.workspaces.insertWithSteps(workspace, steps);
  } catch (err) {
    if (isUniqueViolationOf(err, 'uniq_workspaces_prefix', 'workspaces.prefix')) {
      throw new DomainError('conflict', `workspace prefix ${workspace.prefix} is already in use`);
    }
    throw err;
  }
  return { ...workspace, steps };
}

/**
 * The console's "create a workspace" (right after setup the only admin has no workspace and must be able to make one
 * there). Only an instance-wide admin may: a workspace has no admin before it exists (SPEC §11).
 */
export async function createWorkspaceAs(store: Store, actor: Actor, input: CreateWorkspaceInput): Promise<Workspace> {
  if (!actor.global || actor.kind !== 'user')
    throw new DomainError('forbidden', 'only an instance admin can create a workspace');
  return createWorkspace(store, input);
}
