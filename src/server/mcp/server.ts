// One MCP server per request, bound to the authenticated actor (stateless Streamable HTTP: nothing is kept
// between requests, so any of several server processes can answer any request).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Actor } from '../domain/access';
import type { RequestEntry } from '../observability/request-scope';
import type { Services } from '../services';
import { registerCreateTask } from './tools/create-task';
import { registerReadTools } from './tools/read-tasks';

export const MCP_SERVER_INFO = { name: 'tether', version: '0.1.0' };

/** `request`: the HTTP request's entry (its log line and error counter), absent outside the HTTP server. */
export function buildMcpServer(services: Services, actor: Actor, request?: RequestEntry): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    instructions:
      'Tether tasks. create_task is create-if-absent by external_id: read `deduplicated` and `creation_complete` in its result before saying what happened.',
  });
  registerCreateTask(server, services, actor, request);
  registerReadTools(server, services, actor, request);
  return server;
}
