// A REST route: method + path pattern → handler. Patterns use `:name` segments.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Authenticated } from '../auth/authenticate';
import type { Services } from '../services';

export interface RestRequest {
  req: IncomingMessage;
  res: ServerResponse;
  services: Services;
  auth: Authenticated;
  params: Record<string, string>;
  query: URLSearchParams;
}

export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  pattern: RegExp;
  /** Routes that authenticate themselves (e.g. SSE streams with their own checks) set this to false. */
  handle(r: RestRequest): Promise<void>;
}

/** `/tasks/:id/archive` → a RegExp with named groups, anchored, under /api/v1. */
export function path(pattern: string): RegExp {
  const body = pattern.replace(/:([a-z_]+)/g, (_m, name: string) => `(?<${name}>[^/]+)`);
  return new RegExp(`^/api/v1${body}/?$`);
}
