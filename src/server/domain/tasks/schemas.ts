// The task API's request and response schemas (SPEC §3, §7, §10), one module for every surface: tRPC types its
// procedures with them, REST and MCP parse through the same envelopes, and the OpenAPI document is generated from
// them. Plain zod, no server imports, so a client's types can come from here too.
//
// Two kinds of request schema, because SPEC §4.1 fixes the ORDER in which a request is checked:
//   - envelopes (`ZCreateEnvelope`, `ZIdentityEnvelope`, `ZTaskUpdateEnvelope`): what is read before authorization.
//     A wrong type here is `invalid payload` (step 1). Every surface runs them.
//   - request types (`ZCreateTaskRequest`, `ZLookupRequest`, `ZReleaseRequest`, `ZUpdateTaskRequest`): the precise
//     shape a typed client must send (SPEC §10: "inputs are typed as precisely as the contract allows"). Their parts
//     are checked later, each at its own step, by the domain: the identity's byte rules after authorization (§2.1,
//     §4.1 steps 3–4), the idempotency key after authorization (§7), the create fields only after a lookup miss
//     (step 6, so a drifted retry still gets its task back). They are built from the same pieces the domain checks
//     with (`ZCreateTaskFields`, `ZIdempotencyKey`, `ZUpdateTaskInput`), so the type and the check cannot drift.
import { z } from 'zod';
import { storedText } from '../text';

export const MAX_TITLE_CHARS = 500;
export const MAX_DESCRIPTION_CHARS = 100_000;

/** Ids of workspaces, tasks, steps, attachments… as every surface accepts them. */
export const ZId = z.string().min(1).max(200);

/** The external identity as sent: a string. Its byte rules (SPEC §2.1) run after authorization, in the domain. */
export const ZRawExternalId = z
  .string()
  .describe(
    'Your identity for the external thing: at most 255 UTF-8 bytes, no control characters, compared exactly (SPEC §2).',
  );

/** SPEC §7: a caller-generated UUID, reused when retrying the same release. Checked after authorization. */
export const ZIdempotencyKey = z.guid().describe('A UUID you generate once per release and reuse when you retry it.');

// ---- create (SPEC §4) ----

/** SPEC §4.1 step 1: the transport envelope. Every other field passes through, untouched, to step 6. */
export const ZCreateEnvelope = z.looseObject({
  workspace_id: ZId.nullish(),
  parent_id: ZId.nullish(),
  external_id: ZRawExternalId.nullish(),
});

/** The rest of a create (SPEC §10 create body fields), checked only after a lookup miss (SPEC §4.1 step 6). */
export const ZCreateTaskFields = z.object({
  // SPEC §10: stored as sent or refused (domain/text.ts); too long is named with its limit, never "title is required".
  title: storedText(MAX_TITLE_CHARS, { trim: true, error: 'title is required' }).min(1, 'title is required'),
  description: storedText(MAX_DESCRIPTION_CHARS).nullish(),
  step_id: ZId.nullish(),
  attachments: z.array(ZId).max(100).nullish(),
  repositories: z
    .array(z.object({ repository_id: ZId, fresh_branch: z.boolean().optional() }))
    .max(50)
    .nullish(),
  remote_contributions: z.array(storedText(2000).min(1)).max(50).nullish(),
  start_agent: z.boolean().nullish(),
  agent_profile_id: ZId.nullish(),
  blocked_by: z.array(ZId).max(100).nullish(),
});
export type TCreateTaskFields = z.infer<typeof ZCreateTaskFields>;

// SPEC §10: the create input accepts an identity envelope without a title (title is enforced after a lookup miss).
const ZCreateFieldsInput = ZCreateTaskFields.partial();
const identity = { external_id: ZRawExternalId.nullish() };

/**
 * A create as a typed client sends it: `workspace_id`, or `parent_id` (the task lands in the parent's workspace,
 * SPEC §4.1 step 2), or both. MCP alone may name neither (its single-workspace fallback).
 */
export const ZCreateTaskRequest = z.union([
  ZCreateFieldsInput.extend({ workspace_id: ZId, parent_id: ZId.nullish(), ...identity }),
  ZCreateFieldsInput.extend({ workspace_id: z.null().optional(), parent_id: ZId, ...identity }),
]);
export type TCreateTaskRequest = z.input<typeof ZCreateTaskRequest>;

// ---- lookup and release (SPEC §7) ----

/**
 * What lookup and release read before authorization: the workspace, and an identity and key that are strings when
 * present. "Missing" is not decided here: a missing identity or key is answered after authorization (SPEC §2.1, §7),
 * as on REST, where both come from the query string and a header.
 */
export const ZIdentityEnvelope = z.object({
  // Any string: a workspace the caller cannot see is the same 404 however it is spelled (SPEC §11).
  workspace_id: z.string(),
  external_id: ZRawExternalId.nullish(),
  idempotency_key: z.string().nullish(),
  reason: z.string().nullish(),
});
export type TIdentityEnvelope = z.output<typeof ZIdentityEnvelope>;

export const ZLookupRequest = z.object({ workspace_id: ZId, external_id: ZRawExternalId });
export type TLookupRequest = z.input<typeof ZLookupRequest>;

/** SPEC §7, §13: why the operator released it, kept with the release record. Checked after authorization. */
export const ZReleaseReason = z
  .string()
  .describe(
    'Optional: why you release it (at most 500 characters), shown in the identity history. Not part of the request: a retry with the same key and another reason replays the first.',
  );

export const ZReleaseRequest = ZLookupRequest.extend({
  idempotency_key: ZIdempotencyKey,
  reason: ZReleaseReason.nullish(),
});
export type TReleaseRequest = z.input<typeof ZReleaseRequest>;

// ---- update (SPEC §2.3) ----

/** PATCH /tasks/:id and `task.update`'s patch. SPEC §2.3: `external_id` is ignored (stripped); the rest applies. */
export const ZUpdateTaskInput = z.object({
  title: storedText(MAX_TITLE_CHARS, { trim: true }).min(1, 'title must not be empty').optional(),
  description: storedText(MAX_DESCRIPTION_CHARS).nullable().optional(),
  step_id: ZId.optional(),
});
export type TUpdateTaskInput = z.infer<typeof ZUpdateTaskInput>;

/** `task.update`'s envelope: the task id; the patch is checked by the domain, in REST's words. */
export const ZTaskUpdateEnvelope = z.object({ id: ZId, patch: z.unknown() });

export const ZUpdateTaskRequest = z.object({ id: ZId, patch: ZUpdateTaskInput });
export type TUpdateTaskRequest = z.input<typeof ZUpdateTaskRequest>;

// ---- responses (SPEC §3, §10) ----

/** The task body of every surface (`toTaskBody`): snake_case, `external_id` only when held. */
export const ZTaskBody = z.object({
  id: z.string(),
  workspace_id: z.string(),
  identifier: z.string().describe('Human identifier, e.g. OPS-42.'),
  title: z.string(),
  description: z.string().nullable(),
  step_id: z.string(),
  parent_id: z.string().nullable(),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  revision: z.number().int(),
  external_id: z.string().optional().describe('The external identity this task holds; absent when it holds none.'),
});

const CREATION_COMPLETE =
  'Required synchronous setup finished — never "task done" or "agent running". `false` (only with `deduplicated: true`) means another create holds the identity and may still be running: never a reason to release and retry.';

/** SPEC §3: every create answers with both booleans. */
export const ZCreateTaskResult = ZTaskBody.extend({
  deduplicated: z
    .boolean()
    .describe('true: nothing new was created; the task holding this external_id is returned unchanged.'),
  creation_complete: z.boolean().describe(CREATION_COMPLETE),
});

/** SPEC §7 lookup: the holder, archived and unsettled included. */
export const ZLookupResult = ZTaskBody.extend({ creation_complete: z.boolean().describe(CREATION_COMPLETE) });

/**
 * SPEC §7 release, as data. Only a release answers with data; "nothing holds it" is a `NOT_FOUND` error on tRPC (and
 * REST's stored 404), like every other "not there" (SPEC §10).
 */
export const ZReleaseResult = z.object({
  released: z.literal(true),
  /** The stored result of an earlier request with this key: nothing was released twice. */
  replayed: z.boolean(),
  release_id: z.string(),
  /** The task that held the identity; it is kept, without the identity. */
  holder_task_id: z.string(),
});
export type TReleaseResult = z.output<typeof ZReleaseResult>;

/** A page of a workspace's tasks, newest first (REST `GET /workspaces/:id/tasks`, `task.list`). */
export const ZTaskPage = z.object({
  tasks: z.array(ZTaskBody),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page.'),
});
