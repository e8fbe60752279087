'use client';
// Live updates for the console: one `event.onEvent` subscription per workspace (SPEC §9, over SSE via
// httpSubscriptionLink). An event does not patch the cache; it marks every console query stale so the pages on screen
// refetch what they show — one code path for "what the page shows", whether it arrived live or by poll.
import { skipToken, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTRPC } from './client';

/** `live`: the stream is open. `connecting`: first connect. `reconnecting`: it dropped and retries (resuming by
 * lastEventId). `offline`: the server refused it (e.g. the session ended); pages fall back to polling. */
export type LiveStatus = 'off' | 'connecting' | 'live' | 'reconnecting' | 'offline';

/** A burst of events (an import, a busy integration) costs at most one refetch per window per page. */
export const INVALIDATE_THROTTLE_MS = 500;
/** After a refusal, try again this much later (the link itself retries network drops). */
const RETRY_AFTER_ERROR_MS = 10_000;

export function useLiveEvents(workspaceId: string | null): LiveStatus {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invalidate = useThrottled(
    useCallback(() => void queryClient.invalidateQueries(trpc.console.pathFilter()), [queryClient, trpc]),
    INVALIDATE_THROTTLE_MS,
  );
  // Which workspace's stream has been open at least once: a drop after that is "reconnecting", not "connecting".
  const [wasLive, setWasLive] = useState<string | null>(null);
  const sub = useSubscription(
    trpc.event.onEvent.subscriptionOptions(workspaceId ? { workspace_id: workspaceId } : skipToken, {
      // (Re)connected: whatever changed between the page's last fetch and now is caught up once; after that the
      // server resumes from lastEventId, so each later change arrives as an event.
      onStarted: () => {
        setWasLive(workspaceId);
        invalidate();
      },
      onData: () => invalidate(),
    }),
  );
  const { status, reset } = sub;
  useEffect(() => {
    if (status !== 'error') return;
    const t = setTimeout(reset, RETRY_AFTER_ERROR_MS);
    return () => clearTimeout(t);
  }, [status, reset]);

  switch (status) {
    case 'idle':
      return 'off';
    case 'pending':
      return 'live';
    case 'error':
      return 'offline';
    case 'connecting':
      return wasLive === workspaceId ? 'reconnecting' : 'connecting';
  }
}

/** Leading and trailing: the first call runs at once, calls within the window collapse into one at its end. */
function useThrottled(fn: () => void, ms: number): () => void {
  const fnRef = useRef(fn);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    fnRef.current = fn;
  }, [fn]);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(() => {
    if (timer.current) return;
    const wait = last.current + ms - Date.now();
    const run = () => {
      timer.current = null;
      last.current = Date.now();
      fnRef.current();
    };
    if (wait <= 0) run();
    else timer.current = setTimeout(run, wait);
  }, [ms]);
}
