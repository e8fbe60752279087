// Agent profiles (SPEC §1): what an immediate or deferred start launches, and through which runner
// (`builtin`, `webhook` with `config.url`, or one registered with registerAgentRunner).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/types';
import { dbErrorInfo } from '../../db/dialect';
import { json, str } from '../../db/values';
import { DomainError } from '../errors/domain-error';

export interface AgentProfile {
  id: string;
  workspaceId: string;
  name: string;
  runner: string;
  config: Record<string, unknown>;
  createdAt: string;
}

export async function createAgentProfile(
  db: Db,
  input: { workspaceId: string; name: string; runner?: string; config?: Record<string, unknown> },
): Promise<AgentProfile> {
  const runner = input.runner ?? 'builtin';
  const config = input.config ?? {};
  if (!input.name.trim()) throw new DomainError('validation_failed', 'name is required');
  if (runner === 'webhook') {
    const url = config.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new DomainError('validation_failed', 'a webhook profile needs an http(s) url');
  }
  const ws = await db.one('SELECT id FROM workspaces WHERE id = $1', [input.workspaceId]);
  if (!ws) throw new DomainError('validation_failed', 'workspace not found');
  const profile: AgentProfile = {
    id: randomUUID(),
    workspaceId: input.workspaceId,
    name: input.name.trim(),
    runner,
    config,
    createdAt: new Date().toISOString(),
  };
  try {
    await db.run('INSERT INTO agent_profiles (id, workspace_id, name, runner, config, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      profile.id,
      profile.workspaceId,
      profile.name,
      profile.runner,
      JSON.stringify(profile.config),
      profile.createdAt,
    ]);
  } catch (err) {
    if (dbErrorInfo(err)?.uniqueViolation) throw new DomainError('conflict', `agent profile ${profile.name} already exists`);
    throw err;
  }
  return profile;
}

export async function listAgentProfiles(db: Db, workspaceId: string): Promise<AgentProfile[]> {
  const rows = await db.query<Record<string, unknown>>('SELECT * FROM agent_profiles WHERE workspace_id = $1 ORDER BY name', [workspaceId]);
  return rows.map((r) => ({
    id: str(r.id),
    workspaceId: str(r.workspace_id),
    name: str(r.name),
    runner: str(r.runner),
    config: json<Record<string, unknown>>(r.config),
    createdAt: str(r.created_at),
  }));
}
