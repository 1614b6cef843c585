import { type Static, Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { ChatResp, Source } from '../answers/answers.schemas'

// Output schemas stay free of `format`: MCP clients validate structured results with their own
// JSON Schema validators, and not every one knows the formats TypeBox is told about.
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
export const DocumentTextParams = Type.Object({
  corpus_id: Type.String({ maxLength: 64 }),
  document_id: Type.String({ maxLength: 64 }),
})

/** Bounds of the document inventory (spec, Limits: MCP document listing). */
export const DOCS_LIMIT_MAX = 200
export const DOCS_LIMIT_DEFAULT = 50
/** Bounds of one page of a document's text, in characters. */
export const TEXT_LIMIT_MAX = 50_000
export const TEXT_LIMIT_DEFAULT = 10_000

const docsQueryProps = {
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description: 'Case-insensitive substring of the filename or the description.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: DOCS_LIMIT_MAX,
      default: DOCS_LIMIT_DEFAULT,
      description: 'Page size.',
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, default: 0, description: 'Documents to skip (after the `q` filter).' }),
  ),
}

export const McpDocsQuery = Type.Object(docsQueryProps)

export const McpDoc = namedObject('McpDoc', {
  id: Type.String({ description: 'Pinnable document id: pass it in `doc_ids` of a query.' }),
  filename: Type.String({ description: 'Relative path of the file in the base.' }),
  title: Type.String({ description: 'Title found in the document, else the file name without extension.' }),
  description: Nullable(
    Type.String({ description: 'The opening of the extracted text; null until the text is extracted.' }),
  ),
  status: Type.String({ description: '`pending`, `onboarding`, `ready` or `failed`.' }),
  size: Type.Integer({ description: 'Size of the stored file in bytes.' }),
})

export const McpDocsResp = namedObject('McpDocsResp', {
  items: Type.Array(McpDoc),
  total: Type.Integer({ description: 'Documents matching `q` (all documents without it).' }),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

export const McpSource = Type.Composite(
  [
    Type.Omit(Source, ['id']),
    Type.Object({
      id: Type.String({ description: 'The pinnable id of the source document (same as `document_id`).' }),
      passage_id: Type.String({ description: 'The passage the snippet comes from.' }),
    }),
  ],
  { $id: 'McpSource' },
)

export const McpQueryResp = Type.Composite(
  [
    Type.Omit(ChatResp, ['sources', 'used_docs']),
    Type.Object({
      used_docs: Type.Array(Type.String(), { description: 'Pinnable ids of the documents the answer used.' }),
      sources: Type.Array(McpSource),
    }),
  ],
  { $id: 'McpQueryResp' },
)

export const McpMetaResp = namedObject('McpMetaResp', {
  id: Type.String(),
  name: Type.String(),
  status: Type.String({ description: '`new`, `training`, `ready` or `failed`.' }),
  description: Nullable(Type.String({ description: 'Catalog description (null until described).' })),
  n_documents: Type.Integer(),
  documents_ready: Type.Integer(),
  updated_at: Type.String(),
  endpoints: Type.Object({
    query: Type.String({ description: 'POST a ChatReq here with an API key holding `query`.' }),
    documents: Type.String({ description: 'GET the pinnable document inventory.' }),
    mcp: Type.String({ description: 'The hosted MCP server (Streamable HTTP).' }),
  }),
})

export const TextQuery = Type.Object({
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'First character to return.' })),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: TEXT_LIMIT_MAX,
      default: TEXT_LIMIT_DEFAULT,
      description: 'Characters to return.',
    }),
  ),
})

export const DocumentTextResp = namedObject('DocumentTextResp', {
  id: Type.String(),
  filename: Type.String(),
  title: Type.String(),
  offset: Type.Integer(),
  total_chars: Type.Integer({ description: 'Length of the whole extracted text, in characters.' }),
  remaining_chars: Type.Integer({ description: 'Characters after this page.' }),
  next_offset: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Offset of the next page; null at the end.',
  }),
  text: Type.String(),
})

export const BaseSummary = namedObject('BaseSummary', {
  id: Type.String(),
  name: Type.String(),
  status: Type.String(),
  n_documents: Type.Integer(),
  documents_ready: Type.Integer(),
  description: Nullable(Type.String()),
})

export type McpDocs = Static<typeof McpDocsResp>
export type McpAnswer = Static<typeof McpQueryResp>
export type McpMeta = Static<typeof McpMetaResp>
export type DocumentText = Static<typeof DocumentTextResp>
export type Base = Static<typeof BaseSummary>
