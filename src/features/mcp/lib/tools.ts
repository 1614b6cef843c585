import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import { type Static, type TSchema, Type } from '@sinclair/typebox'
import type { Principal } from '../../../platform/auth/principal'
import { ApiError } from '../../../platform/errors/errors'
import { compileValidator } from '../../../platform/http/validation'
import { ChatReq } from '../../answers/answers.schemas'
import {
  type Base,
  BaseSummary,
  DOCS_LIMIT_DEFAULT,
  DOCS_LIMIT_MAX,
  type DocumentText,
  DocumentTextResp,
  type McpAnswer,
  type McpDocs,
  McpDocsResp,
  McpQueryResp,
  TEXT_LIMIT_DEFAULT,
  TEXT_LIMIT_MAX,
} from '../mcp.schemas'
import type { DocsRequest, McpService, TextRequest } from '../mcp.service'
import { formatAnswer, formatBases, formatDocuments, formatError, formatText } from './format'

/**
 * What the tools call: the services in-process (hosted server, `engram mcp` on a data dir) or a
 * remote Engram's REST routes (`engram mcp --url`). Failures are thrown as ApiError (or anything
 * with `code`, `status` and `message`) and become tool errors.
 */
export interface McpBackend {
  bases(): Promise<Base[]>
  query(baseId: string, req: Static<typeof ChatReq>): Promise<McpAnswer>
  documents(baseId: string, req: DocsRequest): Promise<McpDocs>
  text(baseId: string, documentId: string, req: TextRequest): Promise<DocumentText>
}

/** The backend of a caller whose credential was already checked, served by the services in-process. */
export function localBackend(svc: McpService, principal: Principal): McpBackend {
  return {
    bases: async () => svc.bases(principal),
    query: (baseId, req) => svc.query(principal, baseId, req),
    documents: (baseId, req) => svc.documents(principal, baseId, req),
    text: (baseId, documentId, req) => svc.text(principal, baseId, documentId, req),
  }
}

const BaseId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Id of the document base (from list_bases), e.g. cor_...',
})
const strict = { additionalProperties: false }

const QueryArgs = Type.Object(
  {
    base_id: BaseId,
    question: ChatReq.properties.question,
    doc_ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 20,
        description:
          'Answer only from these documents: pinnable ids from list_documents or from the "Documents used" line of an earlier answer.',
      }),
    ),
    strategy: Type.Optional(
      Type.Union([Type.Literal('cart'), Type.Literal('rag')], {
        description:
          "`cart` (default): answer from the base's trained cartridges; `rag`: search the passage index.",
      }),
    ),
    k: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, description: 'Sources to return (default 3).' }),
    ),
    history: ChatReq.properties.history,
  },
  strict,
)

const DocsArgs = Type.Object(
  {
    base_id: BaseId,
    q: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Case-insensitive substring of the filename or description.',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DOCS_LIMIT_MAX,
        description: `Page size (default ${DOCS_LIMIT_DEFAULT}).`,
      }),
    ),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'Documents to skip (default 0).' })),
  },
  strict,
)

const ReadArgs = Type.Object(
  {
    base_id: BaseId,
    document_id: Type.String({
      minLength: 1,
      maxLength: 64,
      description: "Pinnable document id from list_documents or from an answer's sources.",
    }),
    offset: Type.Optional(Type.Integer({ minimum: 0, description: 'First character to read (default 0).' })),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: TEXT_LIMIT_MAX,
        description: `Characters to read (default ${TEXT_LIMIT_DEFAULT}).`,
      }),
    ),
  },
  strict,
)

interface ToolDef<S extends TSchema> {
  name: string
  title: string
  description: string
  input: S
  output: TSchema
  readOnly: true
  run(backend: McpBackend, args: Static<S>): Promise<{ text: string; data: Record<string, unknown> }>
}

const define = <S extends TSchema>(t: ToolDef<S>) => t as unknown as ToolDef<TSchema>

/** The tools, in the order agents see them. */
export const TOOLS: ToolDef<TSchema>[] = [
  define({
    name: 'list_bases',
    title: 'List document bases',
    description:
      'Lists the document bases this API key can read, with their id, name, status (only `ready` bases answer questions), document counts and catalog description. Start here to find a base_id.',
    input: Type.Object({}, strict),
    output: Type.Object({ bases: Type.Array(BaseSummary) }),
    readOnly: true,
    run: async (b) => {
      const bases = await b.bases()
      return { text: formatBases(bases), data: { bases } }
    },
  }),
  define({
    name: 'query_base',
    title: 'Ask a document base',
    description:
      'Answers a question from the documents of one base and returns the answer with numbered sources ([1] filename — passage) to cite, plus the pinnable ids of the documents used. When the documents do not answer the question, it says so (`answered: false`) and lists only the closest passages. To focus a follow-up on some documents, pass their ids as doc_ids.',
    input: QueryArgs,
    output: McpQueryResp,
    readOnly: true,
    run: async (b, a: Static<typeof QueryArgs>) => {
      const { base_id, ...req } = a
      const answer = await b.query(base_id, req)
      return { text: formatAnswer(answer), data: answer }
    },
  }),
  define({
    name: 'list_documents',
    title: 'List the documents of a base',
    description:
      'Lists the documents of a base by filename, with each pinnable id, title, a short description, status and size. Filter with q (a case-insensitive substring of the filename or description) and page with limit and offset; `total` counts the matches.',
    input: DocsArgs,
    output: McpDocsResp,
    readOnly: true,
    run: async (b, a: Static<typeof DocsArgs>) => {
      const { base_id, ...req } = a
      const docs = await b.documents(base_id, req)
      return { text: formatDocuments(docs), data: docs }
    },
  }),
  define({
    name: 'read_document',
    title: 'Read a document',
    description:
      'Returns the extracted text of one document by its pinnable id, a page at a time: `offset` and `limit` are in characters, and the reply says how many characters are left and the offset of the next page.',
    input: ReadArgs,
    output: DocumentTextResp,
    readOnly: true,
    run: async (b, a: Static<typeof ReadArgs>) => {
      const { base_id, document_id, ...req } = a
      const text = await b.text(base_id, document_id, req)
      return { text: formatText(text), data: text }
    },
  }),
]

const validators = new Map(TOOLS.map((t) => [t.name, compileValidator(t.input, 'body')]))

/** The tool list as `tools/list` answers it: names, descriptions and JSON schemas. */
export function toolList(): Tool[] {
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: json(t.input) as Tool['inputSchema'],
    outputSchema: json(t.output) as Tool['outputSchema'],
    annotations: { title: t.title, readOnlyHint: t.readOnly, openWorldHint: false },
  }))
}

/** Runs one tool call. Every failure, bad arguments included, is a tool error (`isError: true`). */
export async function callTool(
  backend: McpBackend,
  name: string,
  args: unknown,
  onUnexpected?: (e: unknown) => void,
): Promise<CallToolResult> {
  const tool = TOOLS.find((t) => t.name === name)
  if (!tool) {
    return errorResult(`Unknown tool ${JSON.stringify(name)}. Tools: ${TOOLS.map((t) => t.name).join(', ')}.`)
  }
  try {
    const parsed = validators.get(name)!.parse(args ?? {})
    const { text, data } = await tool.run(backend, parsed as Static<TSchema>)
    return { content: [{ type: 'text', text }], structuredContent: data }
  } catch (e) {
    if (!(e instanceof ApiError) && !isRemoteFailure(e)) onUnexpected?.(e)
    return errorResult(formatError(e))
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

function isRemoteFailure(e: unknown): boolean {
  return typeof e === 'object' && e !== null && 'code' in e && 'status' in e
}

/**
 * A plain JSON copy of a TypeBox schema (drops TypeBox's symbol keys). The `$id` names given for
 * the OpenAPI document go too: nested, they would re-base references in the client's validator.
 */
function json(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === '$id' ? undefined : v))) as Record<
    string,
    unknown
  >
}
