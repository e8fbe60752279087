// A REST route: method + path pattern → handler. Patterns use `:name` segments.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Authenticated } from '../auth/authenticate';
import { DomainError } from '../domain/errors/domain-error';
import { validationError } from '../domain/tasks/create-input';
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

/**
 * The query string read through the same zod schema tRPC and MCP use (issue 18), so every surface accepts the same
 * values with the same words. Each name at most once; empty is absent; for `numeric` names plain digits become a
 * number and anything else (`0x10`, `1e3`, ` 5`, `-1`) stays text for the schema to refuse.
 */
export function parseQuery<T extends z.ZodObject>(schema: T, query: URLSearchParams, numeric: readonly string[] = []): z.infer<T> {
  const raw: Record<string, unknown> = {};
  for (const name of Object.keys(schema.shape)) {
    const all = query.getAll(name);
    if (all.length > 1) throw new DomainError('invalid_payload', `${name} given more than once`);
    const v = all[0];
    if (v === undefined || v === '') continue;
    raw[name] = numeric.includes(name) && /^(0|[1-9][0-9]{0,15})$/.test(v) ? Number(v) : v;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data;
}
