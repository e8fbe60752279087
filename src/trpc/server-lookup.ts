// Server-side only (a page's server component): asks the API whether a console query answers "not found", so the page
// can answer with a real 404 instead of rendering and then showing an error. The person's session cookie goes along:
// "not found" includes "in a workspace you cannot see" (the API answers those alike, SPEC §11).
import 'server-only'; // a page's server component only: it forwards the person's cookie (never a browser bundle)
import { headers } from 'next/headers';
import { API_ORIGIN_HEADER } from './api-origin';

/**
 * True when the API answers 404 (or 400: an id that cannot exist) for `procedure` with `input`. Anything else —
 * signed out, a server that cannot be reached, a 500 — is left to the page, which shows it with a way to retry.
 */
export async function apiSaysNotFound(procedure: string, input: unknown): Promise<boolean> {
  const h = await headers();
  const origin = h.get(API_ORIGIN_HEADER);
  if (!origin) return false;
  try {
    const res = await fetch(`${origin}/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, {
      headers: { cookie: h.get('cookie') ?? '' },
      cache: 'no-store',
    });
    await res.arrayBuffer(); // read to the end: the connection goes back to the pool
    return res.status === 404 || res.status === 400;
  } catch {
    return false;
  }
}

/**
 * The signed-in person as `session.me` answers for this request's cookie, for the console frame's first render on the
 * server; `undefined` when the API could not say (the browser then asks itself and shows any failure with a retry).
 * Rendering the frame with the session already known is what lets a page's `notFound()` reach the server render and
 * answer a real 404: behind a gate still "Loading…" the page is never rendered there.
 */
export async function readSessionForRender<T>(): Promise<T | null | undefined> {
  const h = await headers();
  const origin = h.get(API_ORIGIN_HEADER);
  if (!origin) return undefined;
  try {
    const res = await fetch(`${origin}/api/trpc/session.me`, {
      headers: { cookie: h.get('cookie') ?? '' },
      cache: 'no-store',
    });
    const body = (await res.json()) as { result?: { data?: T | null } };
    return res.ok && body.result && 'data' in body.result ? (body.result.data ?? null) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The OpenAPI document as this server serves it at /api/v1/openapi.json, for the reference page's server render;
 * `undefined` when it could not be read. Fetched over HTTP like the session above: pages never import server modules
 * (they end up in Next's bundles), and the served document is the one integrators get.
 */
export async function readOpenApiDocumentForRender<T>(): Promise<T | undefined> {
  const origin = (await headers()).get(API_ORIGIN_HEADER);
  if (!origin) return undefined;
  try {
    const res = await fetch(`${origin}/api/v1/openapi.json`, { cache: 'no-store' });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}
