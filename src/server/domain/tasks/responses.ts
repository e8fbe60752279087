// The response bodies every surface sends for creates and lookups (SPEC §3): `deduplicated` only on create,
// `creation_complete` only on create and lookup, `external_id` only when held.
import { isCreationComplete, isDeduplicated, type CreateOutcome } from '../creation/operation';
import type { LookupResult } from './lookup-task';
import { toTaskBody, type TaskBody } from './task';

export type CreateResponse = TaskBody & { deduplicated: boolean; creation_complete: boolean };
export type LookupResponse = TaskBody & { creation_complete: boolean };

export function toCreateResponse(outcome: CreateOutcome): CreateResponse {
  return { ...toTaskBody(outcome.task), deduplicated: isDeduplicated(outcome), creation_complete: isCreationComplete(outcome) };
}

export function toLookupResponse(result: LookupResult): LookupResponse {
  return { ...toTaskBody(result.task), creation_complete: result.creationComplete };
}
