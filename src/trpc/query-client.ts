// One QueryClient factory for the console. Data from the API is operational state that other processes
// change, so it goes stale quickly; a short staleTime still avoids refetch storms on focus.
import { QueryCache, QueryClient } from '@tanstack/react-query';
import { isUnauthorized } from './errors';

/** A session that expired (or was signed out elsewhere) sends the person back to sign-in, then here again. */
function onQueryError(err: unknown): void {
  if (typeof window === 'undefined' || !isUnauthorized(err)) return;
  const { pathname, search } = window.location;
  if (pathname.startsWith('/signin') || pathname.startsWith('/setup')) return;
  window.location.assign(`/signin?next=${encodeURIComponent(pathname + search)}`);
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: onQueryError }),
    defaultOptions: {
      // Refusals (401/403/404/409) are answers, not blips: retrying them only delays the message.
      queries: { staleTime: 5_000, retry: (count, err) => count < 1 && !isClientError(err) },
      mutations: { retry: false },
    },
  });
}

function isClientError(err: unknown): boolean {
  const status = (err as { data?: { httpStatus?: number } } | null)?.data?.httpStatus;
  return typeof status === 'number' && status >= 400 && status < 500;
}
