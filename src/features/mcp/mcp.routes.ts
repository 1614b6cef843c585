import { defineRoute, type RouteDef } from '../../platform/http/route'
import { ChatReq, SERVING_ERRORS } from '../answers/answers.schemas'
import { type McpHttpOptions, requireApiKey, serveMcpHttp } from './lib/http'
import {
  CorpusParams,
  DocumentTextParams,
  DocumentTextResp,
  McpDocsQuery,
  McpDocsResp,
  McpMetaResp,
  McpQueryResp,
  TextQuery,
} from './mcp.schemas'
import type { McpService } from './mcp.service'

const AGENTS =
  'Authenticated by a tenant API key (`Authorization: Bearer ek_...`); a user session is refused with 403 `api_key_required`.'

const MCP_HTTP = `The hosted MCP server (Streamable HTTP transport, stateless, JSON responses). Send JSON-RPC 2.0
messages with POST (\`Accept: application/json, text/event-stream\`); GET and DELETE answer 405 since
there are no sessions. Authenticated on every request by a tenant API key (\`Authorization: Bearer
ek_...\`): 401 without a valid one. Tools: list_bases, query_base (needs the \`query\` scope),
list_documents, read_document (needs \`query\`). Tool failures are MCP tool errors (\`isError: true\`).`

/** The MCP REST routes (spec: Answers and MCP surface) and the hosted MCP server at /mcp-http/. */
export function mcpRoutes(mcp: McpService, http: McpHttpOptions): RouteDef[] {
  // One path: the router also answers `/mcp-http` without the slash, and a second definition
  // would give the OpenAPI document two operations with the same id.
  const hosted = (['POST', 'GET', 'DELETE'] as const).map((method) =>
    defineRoute({
      method,
      path: '/mcp-http/',
      mount: 'unversioned',
      auth: 'bearer',
      // Each tool sees only the key's bases (McpService).
      boundKeys: 'served',
      summary:
        method === 'POST'
          ? 'Hosted MCP server: one JSON-RPC message or batch'
          : 'Hosted MCP server: not available in stateless mode (405)',
      description: MCP_HTTP,
      tags: ['mcp'],
      bodyKind: 'stream',
      idempotent: false,
      handler: ({ request, principal }) => serveMcpHttp(request, principal, mcp, http),
    }),
  )
  return [
    defineRoute({
      method: 'POST',
      path: '/mcp/:corpus_id/query',
      auth: 'bearer',
      scope: 'query',
      summary: 'Answer a question for an agent; source ids are pinnable document ids',
      description: `${AGENTS} Sources carry \`id\` = the pinnable document id and \`passage_id\`. Answers 503 \`serving_unavailable\` with \`Retry-After\` when the engine is saturated or the model server is down.`,
      tags: ['mcp'],
      params: CorpusParams,
      body: ChatReq,
      response: McpQueryResp,
      errors: [...SERVING_ERRORS, 'api_key_required'],
      handler: ({ principal, params, body }) => mcp.query(requireApiKey(principal), params.corpus_id, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/mcp/:corpus_id/documents',
      auth: 'bearer',
      summary: 'The pinnable document inventory of a base, filtered and paged',
      description: `${AGENTS} Files (not sections) by filename; \`total\` counts the documents after the \`q\` filter.`,
      tags: ['mcp'],
      params: CorpusParams,
      query: McpDocsQuery,
      response: McpDocsResp,
      errors: ['api_key_required'],
      handler: ({ principal, params, query }) =>
        mcp.documents(requireApiKey(principal), params.corpus_id, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/mcp/:corpus_id/documents/:document_id/text',
      mount: 'v1',
      auth: 'bearer',
      scope: 'query',
      summary: "A page of a document's extracted text, by pinnable id",
      description: `${AGENTS} \`offset\` and \`limit\` count characters; \`next_offset\` is null at the end. 409 \`document_not_ready\` until the text is extracted.`,
      tags: ['mcp'],
      params: DocumentTextParams,
      query: TextQuery,
      response: DocumentTextResp,
      errors: ['api_key_required'],
      handler: ({ principal, params, query }) =>
        mcp.text(requireApiKey(principal), params.corpus_id, params.document_id, query),
    }),
    defineRoute({
      method: 'GET',
      // `{id}` in the spec; named like its siblings because the router needs one name per segment.
      path: '/mcp/:corpus_id/meta',
      mount: 'v1',
      auth: 'bearer',
      summary: 'Identity, status and catalog description of a base, for agent catalogs',
      description: 'Any credential of the workspace (session or API key).',
      tags: ['mcp'],
      params: CorpusParams,
      response: McpMetaResp,
      handler: ({ principal, params }) => mcp.meta(principal, params.corpus_id),
    }),
    ...hosted,
  ]
}
