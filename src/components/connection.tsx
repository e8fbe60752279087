'use client';
// Honest liveness (SPEC §13: "the live indicator says when it is reconnecting or offline, and a list whose source is
// unreachable keeps its last rows, marked stale"). What the console knows about its connection, from three signals:
// - the event stream (`event.onEvent`, trpc/use-live-events.ts): open, reconnecting, refused;
// - every API answer the page gets (TanStack Query's cache): when the last one arrived, and whether requests now fail —
//   with no answer at all (the server is down or unreachable) or with a server error (the API answers 5xx);
// - the browser's own online state (TanStack Query pauses requests while it is offline: no errors arrive then).
// The header's indicator, the stale marks on lists and the Server panel all read this one state, so they agree.
import { onlineManager, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, useState, useSyncExternalStore, type ReactNode } from 'react';
import { httpStatusOf, isNetworkError, messageOf } from '../trpc/errors';
import type { LiveStatus } from '../trpc/use-live-events';
import { useNow } from './time';

/** `connecting`: first connect; `reconnecting`: answers stopped or the stream dropped, retrying; `offline`: no answer for a while. */
export type ConnectionStatus = 'off' | 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface ApiFailure {
  status: number;
  message: string;
  /** The procedure that failed (`console.overview`). */
  path: string;
  at: number;
}

export interface ConnectionState {
  status: ConnectionStatus;
  /** When the last answer arrived (ms since the epoch). */
  lastAnswer: number | null;
  /** The API answers, but with server errors: the newest one, until a console read succeeds again. */
  apiFailure: ApiFailure | null;
}

/** Requests failing without an answer for this long: offline, not just reconnecting. */
export const OFFLINE_AFTER_MS = 3_000;

const ConnectionContext = createContext<ConnectionState>({ status: 'off', lastAnswer: null, apiFailure: null });

export function useConnection(): ConnectionState {
  return useContext(ConnectionContext);
}

const subscribeOnline = (cb: () => void) => onlineManager.subscribe(cb);

export function ConnectionProvider({ stream, children }: { stream: LiveStatus; children: ReactNode }) {
  const queryClient = useQueryClient();
  const online = useSyncExternalStore(
    subscribeOnline,
    () => onlineManager.isOnline(),
    () => true,
  );
  const [lastAnswer, setLastAnswer] = useState<number | null>(null);
  const [unansweredSince, setUnansweredSince] = useState<number | null>(null);
  const [apiFailure, setApiFailure] = useState<ApiFailure | null>(null);

  useEffect(
    () =>
      queryClient.getQueryCache().subscribe((event) => {
        if (event.type !== 'updated') return;
        const trpcPath = Array.isArray(event.query.queryKey[0])
          ? (event.query.queryKey[0] as string[]).join('.')
          : null;
        if (event.action.type === 'success') {
          setLastAnswer(Date.now());
          setUnansweredSince(null);
          if (trpcPath?.startsWith('console.')) setApiFailure(null);
        } else if (event.action.type === 'error') {
          const err = event.action.error;
          if (isNetworkError(err)) {
            setUnansweredSince((since) => since ?? Date.now());
            return;
          }
          // An answer, even a failing one: the server is there.
          setLastAnswer(Date.now());
          setUnansweredSince(null);
          const status = httpStatusOf(err);
          if (status !== undefined && status >= 500)
            setApiFailure({ status, message: messageOf(err), path: trpcPath ?? 'request', at: Date.now() });
        }
      }),
    [queryClient],
  );

  const now = useNow(1_000);
  const value = useMemo<ConnectionState>(() => {
    let status: ConnectionStatus;
    if (!online) status = 'offline';
    else if (unansweredSince !== null) status = now - unansweredSince >= OFFLINE_AFTER_MS ? 'offline' : 'reconnecting';
    else if (stream === 'offline')
      status = 'reconnecting'; // refused: the page polls, and the stream is tried again
    else status = stream;
    return { status, lastAnswer, apiFailure };
  }, [online, unansweredSince, now, stream, lastAnswer, apiFailure]);
  return <ConnectionContext.Provider value={value}>{children}</ConnectionContext.Provider>;
}
