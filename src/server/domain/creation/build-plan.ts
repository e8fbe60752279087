// SPEC §5: turn a validated request into the stored plan. Step kinds are added by the creation-operations work
// (issue 5); until then a request that asks for an effect this build cannot perform is refused, never ignored.
import type { Services } from '../../services';
import { DomainError } from '../errors/domain-error';
import type { TCreateTaskFields } from '../tasks/create-input';
import { startPolicyFor, type CreationPlan } from './plan';

export async function buildPlan(services: Services, workspaceId: string, fields: TCreateTaskFields): Promise<CreationPlan> {
  void services;
  void workspaceId;
  const unsupported = (
    [
      ['attachments', fields.attachments?.length],
      ['repositories', fields.repositories?.length],
      ['remote_contributions', fields.remote_contributions?.length],
      ['blocked_by', fields.blocked_by?.length],
      ['start_agent', fields.start_agent ? 1 : 0],
    ] as const
  ).find(([, n]) => n);
  if (unsupported) throw new DomainError('validation_failed', `${unsupported[0]}: not supported by this server yet`);
  return { startPolicy: startPolicyFor(fields), steps: [], blockedBy: [] };
}
