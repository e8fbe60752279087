'use client';
// The console's live connection (issue 8): one event subscription for the selected workspace, its status in the
// header, and the polling rule pages follow — no fast polling while events arrive, the old intervals when they don't.
import { createContext, useContext, type ReactNode } from 'react';
import { useLiveEvents, type LiveStatus } from '../trpc/use-live-events';
import { PulseWatcher } from './pulse';
import { useConsoleSession } from './session';

const LiveContext = createContext<LiveStatus>('off');

export function LiveEvents({ children }: { children: ReactNode }) {
  const { workspace } = useConsoleSession();
  const status = useLiveEvents(workspace?.id ?? null);
  return (
    <LiveContext.Provider value={status}>
      <PulseWatcher workspaceId={workspace?.id ?? null} />
      {children}
    </LiveContext.Provider>
  );
}

export function useLiveStatus(): LiveStatus {
  return useContext(LiveContext);
}

/**
 * A query's refetchInterval. While the stream is live, events refresh the page, the pulse (components/pulse.tsx)
 * refreshes it when a create in flight moves (its begin, step progress, leases and takeovers announce no event,
 * SPEC §4.2, §9), and only a slow safety net polls (a release that freed nothing). Without the stream, poll as fast
 * as `offlineMs`, as before.
 */
export const LIVE_FALLBACK_POLL_MS = 30_000;

export function useLivePoll(offlineMs: number): number {
  return useLiveStatus() === 'live' ? LIVE_FALLBACK_POLL_MS : offlineMs;
}

const LABEL: Record<LiveStatus, string> = {
  off: 'Not live',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Not live',
};

/** Fixed width (CSS `.live`), so the header never shifts when the words change. */
export function LiveIndicator() {
  const status = useLiveStatus();
  if (status === 'off') return null;
  return (
    <span className={`live live--${status}`} role="status" title={status === 'live' ? 'Pages update as events arrive' : 'Pages refresh by polling until the live stream is back'}>
      <span className="live__dot" aria-hidden="true" />
      {LABEL[status]}
    </span>
  );
}
