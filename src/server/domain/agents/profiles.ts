// Agent profiles (SPEC §1): what an immediate or deferred start launches, and through which runner
// (`builtin` — the server's TETHER_AGENT_COMMAND, run per launch — `webhook` with `config.url`, or one registered on
// `services.agentRunners`).
import { randomUUID } from 'node:crypto';
import { dbErrorInfo } from '../../db/errors';
import type { AgentProfile } from '../../db/repositories/agent-profiles';
import type { Store } from '../../db/store';
import { DomainError } from '../errors/domain-error';
import { DestinationPolicy } from '../outbound/destinations';

export type { AgentProfile };

/** `destinations`: where a webhook profile's URL may lead (SPEC §9); by default public addresses only. */
export async function createAgentProfile(
  store: Store,
  input: { workspaceId: string; name: string; runner?: string; config?: Record<string, unknown> },
  destinations: DestinationPolicy = new DestinationPolicy(),
): Promise<AgentProfile> {
  const runner = input.runner ?? 'builtin';
  const config = input.config ?? {};
  if (!input.name.trim()) throw new DomainError('validation_failed', 'name is required');
  if (runner === 'webhook') {
    const url = config.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url))
      throw new DomainError('validation_failed', 'a webhook profile needs an http(s) url');
    // The runner posts there on the workspace's behalf: the same rule as a webhook (checked again at every launch).
    const refusal = destinations.urlRefusal(url);
    if (refusal) throw new DomainError('validation_failed', `url: ${refusal}`);
  }
  if (!(await store.workspaces.find(input.workspaceId)))
    throw new DomainError('validation_failed', 'workspace not found');
  const profile: AgentProfile = {
    id: randomUUID(),
    workspaceId: input.workspaceId,
    name: input.name.trim(),
    runner,
    config,
    createdAt: new Date().toISOString(),
  };
  try {
    await store.agentProfiles.insert(profile);
  } catch (err) {
    if (dbErrorInfo(err)?.uniqueViolation)
      throw new DomainError('conflict', `agent profile ${profile.name} already exists`);
    throw err;
  }
  return profile;
}

export function listAgentProfiles(store: Store, workspaceId: string): Promise<AgentProfile[]> {
  return store.agentProfiles.list(workspaceId);
}
