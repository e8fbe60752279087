// The typed shape of a create request for TypeScript clients (SPEC §10 create body fields). At runtime only the
// envelope is checked here: everything else is validated after the lookup miss (SPEC §4.1 step 6), so this
// parser deliberately accepts a request without a title.
import { DomainError } from '../errors/domain-error';
import { isPlainObject } from './create-input';

export interface TCreateTaskRequest {
  workspace_id?: string;
  parent_id?: string;
  external_id?: string | null;
  title?: string;
  description?: string | null;
  step_id?: string;
  attachments?: string[];
  repositories?: Array<{ repository_id: string; fresh_branch?: boolean }>;
  remote_contributions?: string[];
  start_agent?: boolean;
  agent_profile_id?: string;
  blocked_by?: string[];
}

export function parseCreateRequest(raw: unknown): TCreateTaskRequest {
  if (!isPlainObject(raw)) throw new DomainError('invalid_payload');
  return raw as TCreateTaskRequest;
}
