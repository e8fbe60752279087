'use client';
// The console's tRPC client (STYLE: client glue lives in src/trpc). Only the TYPE of the router is imported,
// so no server code reaches the browser bundle. The API is served by the custom server at /api/trpc.
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import { useState, type ReactNode } from 'react';
import type { AppRouter } from '../server/api/root';
import { makeQueryClient } from './query-client';

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

let browserQueryClient: QueryClient | undefined;

function getQueryClient(): QueryClient {
  // On the server every render gets its own client (no data shared between requests);
  // in the browser one client lives for the page's lifetime.
  if (typeof window === 'undefined') return makeQueryClient();
  return (browserQueryClient ??= makeQueryClient());
}

// SPEC §11: cookie-authenticated mutations must carry the session's CSRF token (src/server/auth/csrf.ts).
// The same-origin page learns it from `session.me` (or sign-in) and every request echoes it in a header;
// a cross-site page can neither read it nor set the header.
let csrfToken: string | null = null;
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

export function TRPCReactProvider({ children }: { children: ReactNode }) {
  const queryClient = getQueryClient();
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      // Same origin: the session cookie rides along; no absolute URL needed in the browser.
      // Subscriptions (`event.onEvent`, SPEC §9) stream over SSE: a GET, so it needs no CSRF header (and
      // EventSource cannot send one); the session cookie authenticates it. Everything else goes batched.
      links: [
        splitLink({
          condition: (op) => op.type === 'subscription',
          true: httpSubscriptionLink({ url: '/api/trpc' }),
          false: httpBatchLink({
            url: '/api/trpc',
            headers: () => (csrfToken ? { 'x-csrf-token': csrfToken } : {}),
          }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
