'use client';
// SPEC §13: "the console's lists of unsettled identities and creation operations follow the truth within about two
// seconds". Task events (the live stream) cover what a create settles, releases and deletes; a create's Begin, its
// step progress, lease renewals, a recovery takeover and an Abort send no event (SPEC §4.2, §9) — and they may happen
// in another server process. So while a console page is on screen it polls `console.pulse` once a second: a small
// per-workspace signature of the open creation operations (domain/console/pulse.ts, one shared index read per server
// process). When the signature moves, the console queries on screen refetch — nothing else is polled fast.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '../trpc/client';

/** How often an open console asks. With the server's shared read, a change shows within about this plus a fetch. */
export const PULSE_POLL_MS = 1_000;

export function usePulse(workspaceId: string | null): void {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pulse = useQuery(
    trpc.console.pulse.queryOptions(
      { workspace_id: workspaceId ?? '' },
      // A hidden tab does not poll (TanStack Query's default): the cost is per person actually looking.
      { enabled: workspaceId !== null, refetchInterval: PULSE_POLL_MS, staleTime: 0, retry: false },
    ),
  );
  const seen = useRef<string | null>(null);
  const data = pulse.data;
  useEffect(() => {
    if (!data) return;
    const now = `${data.open}|${data.signature}|${data.leases}`;
    const before = seen.current;
    seen.current = now;
    // The first reading is the baseline: the pages fetched what they show just now.
    if (before === null || before === now) return;
    const pulseKey = trpc.console.pulse.pathKey();
    void queryClient.invalidateQueries({
      ...trpc.console.pathFilter(),
      predicate: (q) => JSON.stringify(q.queryKey[0]) !== JSON.stringify(pulseKey[0]),
    });
  }, [data, queryClient, trpc]);
  useEffect(() => {
    seen.current = null;
  }, [workspaceId]);
}

/** Mounted once in the console frame (components/live.tsx). */
export function PulseWatcher({ workspaceId }: { workspaceId: string | null }) {
  usePulse(workspaceId);
  return null;
}
