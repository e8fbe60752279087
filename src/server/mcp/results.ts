// Tool results (SPEC §10). Success: structuredContent (matching the tool's outputSchema) plus the same JSON as
// text, for clients that only read text. Failure: a tool error (`isError: true`) whose text is REST's error
// body plus a stable code — no structuredContent, because clients validate it against the success schema.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { DomainError } from '../domain/errors/domain-error';
import { toDomainError } from '../domain/errors/domain-error';
import { noteError, type RequestEntry } from '../observability/request-scope';

/** Stable, coarse codes an agent can branch on; the message stays the one REST sends (STYLE habit 4). */
export type McpErrorCode =
  | 'validation'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'unavailable'
  | 'internal';

const BY_STATUS: Record<number, McpErrorCode> = {
  400: 'validation',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  413: 'validation',
  429: 'rate_limited',
  503: 'unavailable',
};

export function mcpErrorCode(err: DomainError): McpErrorCode {
  return BY_STATUS[err.http] ?? 'internal';
}

/** `structured` is a plain JSON object built by a response mapper (toTaskBody, toCreateResponse). */
export function toolResult(structured: object, summary?: string): CallToolResult {
  const content: CallToolResult['content'] = [];
  if (summary) content.push({ type: 'text', text: summary });
  content.push({ type: 'text', text: JSON.stringify(structured) });
  return { structuredContent: structured as Record<string, unknown>, content };
}

/**
 * Any failure → a tool error. A DomainError keeps REST's exact message; anything else is logged and becomes
 * the generic internal message, so no driver or SQL text ever reaches the agent.
 */
export function toolError(err: unknown, request: RequestEntry | undefined): CallToolResult {
  const domain = toDomainError(err);
  // The request's log line and error counter get the code (and, for an internal error, the error itself).
  noteError(request, domain.code, err);
  // `reason` is REST's own `code`, present only where REST's body carries one (SPEC §7: creation_completing…).
  const { error, code: reason } = domain.body();
  const body = reason ? { error, code: mcpErrorCode(domain), reason } : { error, code: mcpErrorCode(domain) };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Runs a tool body, turning every throw into a tool error (never a transport failure). */
export async function guarded(
  run: () => Promise<CallToolResult>,
  request: RequestEntry | undefined,
): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    return toolError(err, request);
  }
}
