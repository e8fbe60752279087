// SPEC §9: one page request for event history (`GET /workspaces/:id/events`, `event.list`) and for a webhook's
// deliveries (`…/deliveries`, `event.deliveries`), shared by REST and tRPC. Issue 18: REST accepted `limit=0`
// (then failed with a 500 on an empty page) where tRPC required 1 or more.
import { z } from 'zod';
import { wholeNumber } from '../paging';

export const MAX_EVENT_PAGE = 500;

export const ZEventPageParams = z.object({
  /** Continue after this outbox `seq` (`next_after` of the previous page). */
  after: wholeNumber(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: wholeNumber(1, MAX_EVENT_PAGE).optional(),
});
export type TEventPageParams = z.infer<typeof ZEventPageParams>;
