// A typed tRPC client for Tether with a bearer token (SPEC §10, §11). Queries and mutations are batched; the event
// stream (`event.onEvent`, SPEC §9) is a subscription over server-sent events. The browser's EventSource cannot send
// an Authorization header, and tRPC's `connectionParams` would put the token in the URL (where proxies log it), so
// subscriptions use the `eventsource` package's EventSource, whose `fetch` option adds the header — the approach
// tRPC's docs recommend for non-cookie auth (httpSubscriptionLink, "Authorization").
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink, type TRPCClient } from '@trpc/client';
import { EventSource } from 'eventsource';
import type { AppRouter } from './app-router';

export interface TetherClientOptions {
  /** The server's base URL, e.g. `https://tether.internal` or `http://localhost:3000`; calls go to `<url>/api/trpc`. */
  url: string;
  /** An API token (`tether token create`), sent as `Authorization: Bearer <token>` on every call and subscription. */
  token: string;
  /** Extra request headers (every call and subscription). */
  headers?: Record<string, string>;
  /** The fetch to use; default: the global one. */
  fetch?: typeof fetch;
}

export type TetherClient = TRPCClient<AppRouter>;

export function createTetherClient(options: TetherClientOptions): TetherClient {
  const url = `${options.url.replace(/\/+$/, '')}/api/trpc`;
  const headers = { ...options.headers, authorization: `Bearer ${options.token}` };
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: httpSubscriptionLink({
          url,
          EventSource,
          // A reconnect (after a dropped stream) sends the header again and resumes from the last event id.
          eventSourceOptions: () => ({
            fetch: (input, init) => fetchImpl(input, { ...init, headers: { ...init.headers, ...headers } }),
          }),
        }),
        false: httpBatchLink({ url, headers, fetch: fetchImpl }),
      }),
    ],
  });
}
