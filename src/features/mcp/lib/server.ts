import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { callTool, type McpBackend, toolList } from './tools'

/** What the server tells clients at `initialize`. */
export const INSTRUCTIONS = `Engram answers questions from document bases with citable sources.
Typical flow: list_bases to find a base_id (only "ready" bases answer), query_base with a question,
then cite the numbered sources. To dig deeper, pin documents with doc_ids (ids come from the
"Documents used" line or from list_documents), or read a document page by page with read_document.`

/**
 * An MCP server exposing Engram's tools over any transport. Built on the SDK's protocol-level
 * `Server` rather than `McpServer`: the tools' JSON schemas are our TypeBox definitions (the same
 * ones the REST routes validate with), which `McpServer` would want restated in zod. The SDK (and
 * the zod and ajv it brings, tens of MB) is loaded by the first MCP call, not at start-up.
 */
export async function createMcpServer(
  backend: McpBackend,
  info: { version: string; onUnexpected?: (e: unknown) => void },
): Promise<Server> {
  const [{ Server }, { CallToolRequestSchema, ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ])
  const server = new Server(
    { name: 'engram', title: 'Engram document bases', version: info.version },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  )
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }))
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(backend, request.params.name, request.params.arguments, info.onUnexpected),
  )
  return server
}
