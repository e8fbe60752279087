// SPEC §9: one page request for event history (`GET /workspaces/:id/events`, `event.list`) and for a webhook's
// deliveries (`…/deliveries`, `event.deliveries`), shared by REST and tRPC, so both accept the same values: one lenient
// surface would take `limit=0` and fail with a 500 on an empty page.
import { z } from 'zod';
import { DomainError } from '../errors/domain-error';
import { wholeNumber } from '../paging';

export const MAX_EVENT_PAGE = 500;

export const ZEventPageParams = z.object({
  /** Continue after this outbox `seq` (`next_after` of the previous page). */
  after: wholeNumber(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('Continue after this event `seq` (`next_after` of the previous page); 0 or absent: from the start.'),
  limit: wholeNumber(1, MAX_EVENT_PAGE)
    .optional()
    .describe(`At most this many (default 100, at most ${MAX_EVENT_PAGE}).`),
});
export type TEventPageParams = z.infer<typeof ZEventPageParams>;

/**
 * Where an event stream resumes (SPEC §9): the last outbox `seq` the subscriber saw, as SSE carries it — REST's
 * `Last-Event-ID` header (what EventSource sends on reconnect), tRPC's `lastEventId`. At most 15 digits: past every seq
 * and within JavaScript's safe integers.
 */
export const ZLastEventId = z.string().regex(/^\d{1,15}$/, { error: 'Last-Event-ID must be an event id' });

/**
 * The resume point of REST's stream and of tRPC's subscription alike (SPEC §10: their errors are twins): blank is
 * none; anything but an event id is 400 `invalid payload: Last-Event-ID must be an event id` — never a silent resume
 * "after" a number no event will reach.
 */
export function parseLastEventId(raw: string | null | undefined): number | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const parsed = ZLastEventId.safeParse(value);
  if (!parsed.success) throw new DomainError('invalid_payload', parsed.error.issues[0]?.message);
  return Number(parsed.data);
}

export const ZStreamResume = z.object({
  last_event_id: wholeNumber(0, Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('Resume after this event `seq` (when the header cannot be sent).'),
});
