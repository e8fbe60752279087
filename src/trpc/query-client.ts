// One QueryClient factory for the console. Data from the API is operational state that other processes
// change, so it goes stale quickly; a short staleTime still avoids refetch storms on focus.
import { QueryClient } from '@tanstack/react-query';

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 5_000, retry: 1 },
    },
  });
}
