// MCP over Streamable HTTP at /api/mcp (SPEC §10), mounted by the custom server. Stateless: every POST gets a
// fresh McpServer + transport bound to the caller, so several server processes can share the load and no
// session outlives its request. Authentication is the same bearer token (or console session) as REST.
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isDomainError } from '../domain/errors/domain-error';
import { readJsonBody, sendError, sendJson } from '../http/body';
import { requireAuthenticated } from '../http/authenticate-request';
import type { ApiHandler } from '../http/types';
import { buildMcpServer } from './server';
import { refuseMalformedToolCalls } from './tool-call-params';

/** JSON-RPC error envelope for refusals that happen before the MCP server sees the message. */
function rpcError(code: number, message: string) {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

export const handleMcp: ApiHandler = async (req, res, services) => {
  try {
    const method = req.method ?? 'GET';
    // SPEC §11: unauthenticated → 401, before anything else is revealed.
    const auth = await requireAuthenticated(services, req);
    // Stateless mode has no server-to-client stream (GET) and no session to end (DELETE).
    if (method !== 'POST') {
      sendJson(res, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'POST' });
      return;
    }
    // Our body reader: the same size limit (413) and strict UTF-8 as every other API surface.
    let body: unknown;
    try {
      body = await readJsonBody(req, services.config.http.maxBodyBytes);
    } catch (err) {
      if (isDomainError(err) && err.code === 'invalid_payload') {
        sendJson(res, 400, rpcError(-32700, 'Parse error: invalid payload'));
        return;
      }
      throw err;
    }

    const server = buildMcpServer(services, auth.actor, services.requests.of(req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    refuseMalformedToolCalls(transport); // SPEC §10: -32602, not the SDK's -32603 with zod's issue list
    await transport.handleRequest(req, res, body);
  } catch (err) {
    if (isDomainError(err) && err.code === 'unauthenticated') res.setHeader('www-authenticate', 'Bearer');
    sendError(res, err, services);
  }
};
