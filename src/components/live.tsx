'use client';
// The console's live connection: one event subscription for the selected workspace, the connection state every part
// of the page reads (./connection.tsx), its indicator in the header, and the polling rule pages follow — no fast polling
// while events arrive, the old intervals when they don't.
import type { ReactNode } from 'react';
import { useLiveEvents } from '../trpc/use-live-events';
import { ConnectionProvider, useConnection, type ConnectionStatus } from './connection';
import { PulseWatcher } from './pulse';
import { useConsoleSession } from './session';
import { formatAbsolute, useTimeZone } from './time';

export function LiveEvents({ children }: { children: ReactNode }) {
  const { workspace } = useConsoleSession();
  const stream = useLiveEvents(workspace?.id ?? null);
  return (
    <ConnectionProvider stream={stream}>
      <PulseWatcher workspaceId={workspace?.id ?? null} />
      {children}
    </ConnectionProvider>
  );
}

/**
 * A query's refetchInterval. While the stream is live, events refresh the page, the pulse (components/pulse.tsx)
 * refreshes it when a create in flight moves (its begin, step progress, leases and takeovers announce no event,
 * SPEC §4.2, §9), and only a slow safety net polls (a release that freed nothing). Without the stream, poll as fast
 * as `offlineMs`, as before.
 */
export const LIVE_FALLBACK_POLL_MS = 30_000;

export function useLivePoll(offlineMs: number): number {
  return useConnection().status === 'live' ? LIVE_FALLBACK_POLL_MS : offlineMs;
}

const LABEL: Record<Exclude<ConnectionStatus, 'off'>, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
};

const TITLE: Record<Exclude<ConnectionStatus, 'off'>, string> = {
  connecting: 'Opening the live stream',
  live: 'Pages update as events arrive',
  reconnecting: 'The server stopped answering or the live stream dropped: retrying. Pages keep what they show.',
  offline: 'The server cannot be reached. Pages keep what they last showed, marked as not up to date.',
};

/** Always there once a workspace is open: Live, Reconnecting… or Offline — with the time of the last answer when not live. */
export function LiveIndicator() {
  const { status, lastAnswer } = useConnection();
  const [zone] = useTimeZone();
  if (status === 'off') return null;
  const since =
    status !== 'live' && status !== 'connecting' && lastAnswer !== null
      ? formatAbsolute(new Date(lastAnswer).toISOString(), zone)
      : null;
  return (
    <span className={`live live--${status}`} role="status" title={TITLE[status]} data-status={status}>
      <span className="live__dot" aria-hidden="true" />
      {LABEL[status]}
      {since && <span className="live__since"> · last update {since}</span>}
    </span>
  );
}
