import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { NameString } from '../../platform/http/text-formats'

const Timestamp = Type.String({ format: 'date-time' })
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])

export const CorpusCreateReq = namedObject('CorpusCreateReq', {
  name: NameString({ minLength: 1, maxLength: 200, description: 'Name of the base (trimmed; not empty).' }),
})

export const CorpusResp = namedObject('CorpusResp', {
  id: Type.String(),
  name: Type.String(),
  source_type: Type.String({ description: '`upload` for a base created through the API.' }),
  status: Type.String({ description: '`new`, `training`, `ready` or `failed`.' }),
  n_documents: Type.Integer(),
  documents_ready: Type.Integer(),
  documents_onboarding: Type.Integer(),
  documents_failed: Type.Integer(),
  last_synced_at: Nullable(Timestamp),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const DocumentResp = namedObject('DocumentResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  filename: Type.String({ description: 'Relative path of the file in the base.' }),
  size: Type.Integer(),
  content_type: Nullable(Type.String()),
  sha256: Nullable(Type.String()),
  status: Type.String({ description: '`pending`, `onboarding`, `ready` or `failed`.' }),
  error: Nullable(Type.String()),
  section_count: Type.Integer(),
  parent_id: Nullable(Type.String()),
  cart_id: Nullable(Type.String()),
  title: Nullable(Type.String()),
  source: Type.String({ description: '`upload`, `push` or `import`.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const CorpusParams = Type.Object({ corpus_id: Type.String({ maxLength: 64 }) })
export const DocumentParams = Type.Object({
  corpus_id: Type.String({ maxLength: 64 }),
  document_id: Type.String({ maxLength: 64 }),
})

export const DocumentsQuery = Type.Object({
  sections: Type.Optional(Type.Boolean({ default: false, description: 'Include section rows.' })),
})

export const ManifestQuery = Type.Object({
  source: Type.Optional(Type.String({ default: 'upload', description: 'Must be `upload`.' })),
})

export const ImportStatusResp = namedObject('ImportStatusResp', {
  state: Type.String({ description: '`none` when nothing was ever imported.' }),
})
