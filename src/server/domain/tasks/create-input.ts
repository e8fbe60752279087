// The create request: the envelope read before the lookup (SPEC §4.1 step 1), and the full field schema
// validated only after a lookup miss (step 6), so a drifted retry still gets its task back.
import { z } from 'zod';
import { DomainError } from '../errors/domain-error';

export interface CreateEnvelope {
  workspaceId?: string;
  parentId?: string;
  rawExternalId: unknown;
  body: Record<string, unknown>;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function optionalId(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > 200) throw new DomainError('invalid_payload', `${key} must be a string`);
  return v;
}

/** SPEC §4.1 step 1. Anything but an object with string ids is `invalid payload`. */
export function parseEnvelope(body: unknown): CreateEnvelope {
  if (!isPlainObject(body)) throw new DomainError('invalid_payload');
  return {
    workspaceId: optionalId(body, 'workspace_id'),
    parentId: optionalId(body, 'parent_id'),
    rawExternalId: body.external_id,
    body,
  };
}

const id = z.string().min(1).max(200);

/** The rest of the request (SPEC §10 create body fields), checked after a lookup miss. */
export const ZCreateTaskFields = z.object({
  title: z.string({ error: 'title is required' }).trim().min(1, 'title is required').max(500),
  description: z.string().max(100_000).nullish(),
  step_id: id.nullish(),
  attachments: z.array(id).max(100).nullish(),
  repositories: z
    .array(z.object({ repository_id: id, fresh_branch: z.boolean().optional() }))
    .max(50)
    .nullish(),
  remote_contributions: z.array(z.string().min(1).max(2000)).max(50).nullish(),
  start_agent: z.boolean().nullish(),
  agent_profile_id: id.nullish(),
  blocked_by: z.array(id).max(100).nullish(),
});
export type TCreateTaskFields = z.infer<typeof ZCreateTaskFields>;

/** zod issues → one clear client error (STYLE habit 5: only input validation is a client error). */
export function validationError(error: z.ZodError): DomainError {
  const first = error.issues[0];
  if (first?.path[0] === 'title' && (first.code === 'invalid_type' || first.code === 'too_small')) {
    return new DomainError('title_required');
  }
  const where = first?.path.length ? first.path.join('.') : 'body';
  return new DomainError('validation_failed', `${where}: ${first?.message ?? 'invalid'}`);
}

export function parseFields(body: Record<string, unknown>): TCreateTaskFields {
  const r = ZCreateTaskFields.safeParse(body);
  if (!r.success) throw validationError(r.error);
  return r.data;
}
