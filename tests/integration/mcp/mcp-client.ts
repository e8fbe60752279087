// The SDK's real MCP client over Streamable HTTP against the running test server (SPEC §10).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ToolOutcome {
  isError: boolean;
  /** structuredContent on success. */
  structured: Record<string, unknown> | undefined;
  /** Every text block, joined. */
  text: string;
  /** The JSON text block parsed (the error body on failure, the structured copy on success). */
  json: Record<string, unknown>;
}

export interface McpTestClient {
  client: Client;
  call(name: string, args: unknown): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export async function connectMcp(baseUrl: string, token: string): Promise<McpTestClient> {
  const client = new Client({ name: 'tether-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/api/mcp', baseUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  // Listing caches each tool's outputSchema: from then on the client itself validates every structuredContent.
  await client.listTools();
  return {
    client,
    async call(name, args) {
      const r = (await client.callTool({ name, arguments: args as Record<string, unknown> })) as CallToolResult;
      const texts = r.content.filter((c) => c.type === 'text').map((c) => c.text);
      return {
        isError: r.isError === true,
        structured: r.structuredContent,
        text: texts.join('\n'),
        json: JSON.parse(texts[texts.length - 1] ?? '{}') as Record<string, unknown>,
      };
    },
    close: () => client.close(),
  };
}
