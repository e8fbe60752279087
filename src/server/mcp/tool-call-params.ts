// SPEC §10: malformed tool arguments are JSON-RPC -32602 (invalid params). The SDK checks a `tools/call` request
// against its schema only while dispatching it, and reports a failure there as -32603 (internal error) whose message
// is zod's issue list (@modelcontextprotocol/sdk 1.32.2; upstream: modelcontextprotocol/typescript-sdk#2284). So a
// `tools/call` the SDK would refuse — `arguments` a string, number, null or array, a `name` that is not a string — is
// answered here first: -32602 and one sentence naming the problem. Well-formed arguments whose values are wrong (a
// number for `title`) stay tool errors with REST's words (`isError: true`, code `validation`), as MCP 2025-11-25 asks
// of input validation, so an agent reads why and can correct the call; for `create_task` they are only checked after
// the lookup anyway (SPEC §4.1 step 6).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  isJSONRPCRequest,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';

/** What a JSON value is, in the words of the message: `a string`, `an array`, `null`. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** zod's name for an expected type, as the message says it (`record` is an object to a JSON-RPC client). */
function expectedKind(expected: string): string {
  return expected === 'record' || expected === 'object'
    ? 'an object'
    : expected === 'array'
      ? 'an array'
      : `a ${expected}`;
}

/** Why `message` is a malformed `tools/call` (`Invalid params: arguments must be an object, not a string`), if it is. */
export function invalidToolCallParams(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message) || message.method !== 'tools/call') return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  // Named from inside `params` (`arguments`, `name`), which is what a client fills in.
  const path = issue.path[0] === 'params' && issue.path.length > 1 ? issue.path.slice(1) : issue.path;
  const where = path.map(String).join('.');
  if (issue.code !== 'invalid_type') return `Invalid params: ${where}: ${issue.message}`;
  const value = issue.path.reduce<unknown>(
    (v, key) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    message,
  );
  if (value === undefined) return `Invalid params: ${where} is required`;
  return `Invalid params: ${where} must be ${expectedKind(issue.expected)}, not ${kindOf(value)}`;
}

/**
 * Puts the check between `transport` and the MCP server connected to it: a malformed `tools/call` is answered
 * -32602 on the spot and never reaches the server; every other message passes through unchanged.
 */
export function refuseMalformedToolCalls(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) throw new Error('connect the MCP server to the transport first');
  transport.onmessage = (message, extra) => {
    const problem = invalidToolCallParams(message);
    if (problem === undefined) deliver(message, extra);
    else if (isJSONRPCRequest(message))
      void transport.send({
        jsonrpc: '2.0',
        id: message.id,
        error: { code: ErrorCode.InvalidParams, message: problem },
      });
  };
}
