// The response bodies every surface sends for creates, lookups and releases (SPEC §3, §7): `deduplicated` only on
// create, `creation_complete` only on create and lookup, `external_id` only when held. Their schemas: ./schemas.ts.
import type { z } from 'zod';
import { isCreationComplete, isDeduplicated, type CreateOutcome } from '../creation/operation';
import { DomainError } from '../errors/domain-error';
import type { ReleaseResult } from '../release/release-external-id';
import type { LookupResult } from './lookup-task';
import type { TReleaseResult, ZCreateTaskResult, ZLookupResult } from './schemas';
import { toTaskBody } from '../../model/task';

export type CreateResponse = z.output<typeof ZCreateTaskResult>;
export type LookupResponse = z.output<typeof ZLookupResult>;

// Each extends the fresh body toTaskBody made rather than copying it (the Found path's answer; same keys, same order).
export function toCreateResponse(outcome: CreateOutcome): CreateResponse {
  return Object.assign(toTaskBody(outcome.task), {
    deduplicated: isDeduplicated(outcome),
    creation_complete: isCreationComplete(outcome),
  });
}

export function toLookupResponse(result: LookupResult): LookupResponse {
  return Object.assign(toTaskBody(result.task), { creation_complete: result.creationComplete });
}

/**
 * A release as data, for surfaces whose results are not HTTP statuses (tRPC). SPEC §10: "nothing holds it" is an error
 * there too — `task not found`, as REST's stored 404 says, and as a replay of that 404 says again.
 */
export function toReleaseResponse(result: ReleaseResult): TReleaseResult {
  if (result.status === 404 || result.holderTaskId === null) throw new DomainError('task_not_found');
  return {
    released: true,
    replayed: result.replayed,
    release_id: result.releaseId,
    holder_task_id: result.holderTaskId,
  };
}
