// The inputs of the console's lists (SPEC §13), one zod schema each: the tRPC procedures and the export route
// (http/console-export.ts) parse the same input, so an export is exactly the list on screen with its filters.
import { z } from 'zod';
import { BROWSE_SORTS, OPERATION_STATES, RELEASE_RESULTS, SETTLEMENT_FILTERS } from './rows';

export const ZId = z.string().min(1).max(200);
export const ZWorkspace = z.object({ workspace_id: ZId });
const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)');
/** An instant with its offset (`2026-12-02T10:00:00.000Z`, `…+01:00`): the console's time-range filters. */
const ZInstant = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date and time with its offset' });

const ZPage = {
  cursor: z.string().max(2048).nullish(),
  direction: z.enum(['after', 'before']).default('after'),
};

/** The task browser: external-id prefix, filters, sort and keyset pages. `created_from`/`created_to` are UTC days. */
export const ZTasksInput = ZWorkspace.extend({
  prefix: z.string().max(4096).nullish(),
  settlement: z.enum(SETTLEMENT_FILTERS).default('any'),
  archived: z.enum(['include', 'exclude', 'only']).default('include'),
  step_id: ZId.nullish(),
  created_from: ZDay.nullish(),
  created_to: ZDay.nullish(),
  sort: z.enum(BROWSE_SORTS).default('identifier'),
  dir: z.enum(['asc', 'desc']).default('desc'),
  ...ZPage,
  limit: z.number().int().min(1).max(100).default(25),
});

/**
 * What the newest-first lists share: an external-id prefix, made at or after `from` and strictly `before`, a search
 * (`q`: an operation's id or request id; a release's id, Idempotency-Key or request id), and keyset pages.
 */
const ZNewestFirst = {
  prefix: z.string().max(4096).nullish(),
  from: ZInstant.nullish(),
  before: ZInstant.nullish(),
  q: z.string().max(300).nullish(),
  ...ZPage,
  limit: z.number().int().min(1).max(200).default(50),
};

/** Creation operations, newest first: state, external-id prefix, begun from/before, and a search. */
export const ZOperationsInput = ZWorkspace.extend({
  state: z.enum([...OPERATION_STATES, 'open']).nullish(),
  ...ZNewestFirst,
});

/** Releases, newest first: result, who, reason, external-id prefix, made from/before, and a search. */
export const ZReleasesInput = ZWorkspace.extend({
  result: z.enum(RELEASE_RESULTS).nullish(),
  actor_id: ZId.nullish(),
  reason: z.enum(['any', 'with', 'without']).default('any'),
  /** Releases whose reason contains this (ASCII letters in any case). */
  reason_text: z.string().max(500).nullish(),
  ...ZNewestFirst,
});

export const ZIdentityInput = ZWorkspace.extend({ external_id: z.string().max(4096) });

export type TTasksInput = z.infer<typeof ZTasksInput>;
export type TOperationsInput = z.infer<typeof ZOperationsInput>;
export type TReleasesInput = z.infer<typeof ZReleasesInput>;
export type TIdentityInput = z.infer<typeof ZIdentityInput>;
