import { Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { NameString } from '../../platform/http/text-formats'
import type { CorpusRow, DocumentRow } from './corpora.repo'

const Timestamp = Type.String({ format: 'date-time' })
const Nullable = <T extends ReturnType<typeof Type.String>>(s: T) => Type.Union([s, Type.Null()])

const AutoOnboard = (extra: string) =>
  Type.Boolean({
    description: `Once the base has been onboarded, onboard new and changed documents by themselves (a run starts a few seconds after an upload, push or sync has been extracted). ${extra}`,
  })

export const CorpusCreateReq = namedObject('CorpusCreateReq', {
  name: NameString({ minLength: 1, maxLength: 200, description: 'Name of the base (trimmed; not empty).' }),
  auto_onboard: Type.Optional(AutoOnboard('Default true.')),
})

export const CorpusUpdateReq = namedObject(
  'CorpusUpdateReq',
  { auto_onboard: Type.Optional(AutoOnboard('Absent: unchanged.')) },
  { additionalProperties: false },
)

export const CorpusResp = namedObject('CorpusResp', {
  id: Type.String(),
  name: Type.String(),
  source_type: Type.String({ description: '`upload` for a base created through the API.' }),
  status: Type.String({ description: '`new`, `training`, `ready` or `failed`.' }),
  n_documents: Type.Integer({ description: 'Documents (files; sections are not counted).' }),
  documents_ready: Type.Integer({ description: 'Documents that answer questions.' }),
  documents_onboarding: Type.Integer({ description: 'Documents an onboarding run is working on now.' }),
  documents_failed: Type.Integer(),
  documents_pending: Type.Integer({
    description:
      'Documents waiting for onboarding: new or changed since the last run (being extracted, or extracted). They do not answer yet.',
  }),
  auto_onboard: Type.Boolean({
    description:
      'Whether new and changed documents are onboarded by themselves once the base has been onboarded (status other than `new`).',
  }),
  auto_onboard_paused: Type.Boolean({
    description:
      'True once someone canceled onboarding (`POST /corpora/{id}/cancel`): documents waiting are not onboarded by themselves until documents are added or changed (the run that starts then takes them all) or someone starts a run. False again from then on.',
  }),
  cart_status: Type.Union([Type.Literal('none'), Type.Literal('building'), Type.Literal('ready')], {
    description:
      "The cart strategy's state. `none`: nothing onboarded yet. `building`: the base answers (by rag) while its cartridges are built in the background; a question asking for cart is answered by rag and its answer says so (`metrics.strategy`). `ready`: cart answers from the cartridges.",
  }),
  last_synced_at: Nullable(
    Type.String({
      format: 'date-time',
      description:
        "When a source's sync or an import last listed its folder to the end; null until one has (uploads and pushes do not move it).",
    }),
  ),
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

const ts = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))

/** The wire shape of a base. */
export function corpusResp(r: CorpusRow) {
  return {
    id: r.id,
    name: r.name,
    source_type: r.source_type,
    status: r.status,
    n_documents: r.n_documents,
    documents_ready: r.documents_ready,
    documents_onboarding: r.documents_onboarding,
    documents_failed: r.documents_failed,
    documents_pending: r.documents_pending,
    auto_onboard: r.auto_onboard === 1,
    auto_onboard_paused: r.auto_onboard_paused === 1,
    cart_status: r.cart_status,
    last_synced_at: ts(r.last_synced_at),
    description: r.description,
    created_at: iso(new Date(r.created_at)),
    updated_at: iso(new Date(r.updated_at)),
  }
}

/** The wire shape of a document or section. */
export function documentResp(d: DocumentRow) {
  return {
    id: d.id,
    corpus_id: d.corpus_id,
    filename: d.path,
    size: d.size,
    content_type: d.content_type,
    sha256: d.sha256,
    status: d.status,
    error: d.error,
    section_count: d.section_count,
    parent_id: d.parent_id,
    cart_id: d.cart_id,
    title: d.section_title,
    source: d.source,
    created_at: iso(new Date(d.created_at)),
    updated_at: iso(new Date(d.updated_at)),
  }
}
