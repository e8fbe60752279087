// A REST route: method + path → handler, and what the OpenAPI document says about it, so the document cannot describe a
// route that is not there. Paths use `:name` segments. Every route carries its contract, so the document lists exactly
// the routes the router answers, with the schemas the handlers parse through (./openapi.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { Authenticated } from '../auth/authenticate';
import { DomainError, type ErrorCode } from '../domain/errors/domain-error';
import { validationError } from '../domain/tasks/create-input';
import type { Services } from '../services';

/** What a public route's handler gets: the request, without a caller. */
export interface PublicRequest {
  req: IncomingMessage;
  res: ServerResponse;
  services: Services;
  params: Record<string, string>;
  query: URLSearchParams;
}

/** What every other route's handler gets: the request and its authenticated caller. */
export interface RestRequest extends PublicRequest {
  auth: Authenticated;
}

interface RouteBase {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Under /api/v1, with `:name` segments: `/tasks/:id/archive`. */
  path: string;
  doc: RouteDoc;
}

/** A route answered without credentials (only the OpenAPI document itself), or one that needs a caller. */
export type RestRoute =
  | (RouteBase & { public: true; handle(r: PublicRequest): Promise<void> })
  | (RouteBase & { public?: false; handle(r: RestRequest): Promise<void> });

/** A route's contract as the OpenAPI document shows it. Request schemas are the precise types (schemas.ts header). */
export interface RouteDoc {
  operationId: string;
  tag: 'Tasks' | 'Identity' | 'Events' | 'Webhooks' | 'Attachments' | 'Workspaces' | 'Reference';
  summary: string;
  description?: string;
  /** Path parameters by name; a `:name` not listed here is a plain string. */
  params?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  body?: { schema: z.ZodType; type?: 'application/json' | 'multipart/form-data' };
  ok: {
    status: 200 | 201 | 204;
    description: string;
    schema?: z.ZodType;
    type?: 'application/json' | 'text/event-stream';
  };
  /** The errors this route answers besides those every route may (./openapi-errors.ts). */
  errors: readonly ErrorCode[];
}

/** `/tasks/:id/archive` → a RegExp with named groups, anchored, under /api/v1. */
export function path(pattern: string): RegExp {
  const body = pattern.replace(/:([a-z_]+)/g, (_m, name: string) => `(?<${name}>[^/]+)`);
  return new RegExp(`^/api/v1${body.replace(/\./g, '\\.')}/?$`);
}

/**
 * The query string read through the same zod schema tRPC and MCP use, so every surface accepts the same values with the
 * same words. Each name at most once; empty is absent; for `numeric` names plain digits become a number and anything
 * else (`0x10`, `1e3`, ` 5`, `-1`) stays text for the schema to refuse.
 */
export function parseQuery<T extends z.ZodObject>(
  schema: T,
  query: URLSearchParams,
  numeric: readonly string[] = [],
): z.infer<T> {
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
