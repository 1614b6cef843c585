import type { Principal } from '../../../platform/auth/principal'
import { fail } from '../../../platform/errors/errors'
import type { Logger } from '../../../platform/log/log'
import type { McpService } from '../mcp.service'
import { createMcpServer } from './server'
import { localBackend } from './tools'

/** What the hosted MCP endpoint needs besides the service. */
export interface McpHttpOptions {
  version: string
  /** Largest JSON-RPC body read, in bytes. */
  maxBodyBytes: number
  log: Logger
}

/** The MCP surface is for agents: a user session is refused with a clear 403, not silently served. */
export function requireApiKey(principal: Principal): Principal {
  if (principal.kind !== 'api_key') throw fail('api_key_required')
  return principal
}

/**
 * Serves one request of the hosted MCP server (Streamable HTTP, stateless). The credential was
 * checked by the route before this runs, on every request, so a revoked key fails its next call.
 * Stateless: each POST gets a fresh server and transport bound to the caller, answered as JSON;
 * any replica can serve any request and nothing is kept between calls.
 */
export async function serveMcpHttp(
  request: Request,
  principal: Principal,
  svc: McpService,
  opts: McpHttpOptions,
): Promise<Response> {
  requireApiKey(principal)
  if (request.method !== 'POST') {
    // No sessions and no server-initiated messages: there is no stream to GET and none to DELETE.
    return jsonRpcError(405, 'Method not allowed: this MCP server is stateless; send JSON-RPC with POST.', {
      allow: 'POST',
    })
  }
  const { WebStandardStreamableHTTPServerTransport } = await import(
    '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
  )
  const server = await createMcpServer(localBackend(svc, principal), {
    version: opts.version,
    onUnexpected: (e) =>
      opts.log.error('mcp tool failed', {
        workspace_id: principal.workspaceId,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      }),
  })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: opts.maxBodyBytes,
  })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    await server.close()
  }
}

function jsonRpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  })
}
