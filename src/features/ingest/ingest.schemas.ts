import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'
import { DocumentResp } from '../corpora/corpora.schemas'

const Timestamp = Type.String({ format: 'date-time' })
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'Lower-case hex SHA-256 of the bytes.' })
const Path = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'Relative path of the file in the base (`/` separators; no `..`, not absolute).',
})

export const ManifestEntry = namedObject(
  'ManifestEntry',
  {
    path: Path,
    sha256: Sha256,
    size: Type.Integer({ minimum: 0, description: 'Size in bytes.' }),
  },
  { additionalProperties: false },
)

/** A manifest's entries; how many one request may list is the server's setting (`too_many_files`). */
const Manifest = Type.Array(ManifestEntry, {
  description: 'The files: at most `ingest.max_manifest_files` (50,000 by default), each path once.',
})

const Prefix = Type.Optional(
  Type.String({
    maxLength: 1024,
    description:
      'Scope the manifest to a folder of the base (`reports/2024`): only push-managed documents under it can be missing or deleted, and every path must be under it.',
  }),
)

export const DiffReq = namedObject(
  'DiffReq',
  { files: Manifest, prefix: Prefix },
  { additionalProperties: false },
)

export const DiffResp = namedObject('DiffResp', {
  new: Type.Array(Type.String(), { description: 'Paths not in the base: upload, then commit.' }),
  changed: Type.Array(Type.String(), { description: 'Paths in the base with other content.' }),
  unchanged: Type.Array(Type.String(), { description: 'Paths in the base with this SHA-256.' }),
  missing: Type.Array(Type.String(), {
    description:
      'Paths of push-managed documents (under `prefix`) absent from the manifest: what `delete_missing` would delete. Documents uploaded by hand or upserted are never listed.',
  }),
  limits: Type.Object({
    max_file_bytes: Type.Integer({ description: 'Files larger than this are refused.' }),
  }),
})

export const UploadUrlsReq = namedObject(
  'UploadUrlsReq',
  { files: Manifest },
  { additionalProperties: false },
)

export const UploadTarget = namedObject('UploadTarget', {
  path: Type.String(),
  sha256: Type.String(),
  size: Type.Integer(),
  upload: Type.Boolean({
    description: 'False when the base already holds this content: nothing to send, commit it directly.',
  }),
  method: Type.Literal('PUT'),
  url: Type.String({
    description:
      'Presigned URL (absolute; send no Authorization) in `presigned` mode; in `raw` mode the path of `PUT /v1/corpora/{id}/documents/raw` with its query, to call with your bearer credential.',
  }),
  headers: Type.Record(Type.String(), Type.String(), { description: 'Headers to send with the PUT.' }),
})

export const UploadUrlsResp = namedObject('UploadUrlsResp', {
  mode: Type.Union([Type.Literal('presigned'), Type.Literal('raw')], {
    description: '`presigned` when the object store is S3; `raw` otherwise (upload through the API).',
  }),
  expires_at: Type.Union([Timestamp, Type.Null()], { description: 'When the presigned URLs stop working.' }),
  uploads: Type.Array(UploadTarget),
})

export const RawQuery = Type.Object({ path: Path, sha256: Sha256 })

export const RawResp = namedObject('RawResp', {
  path: Type.String(),
  sha256: Type.String(),
  size: Type.Integer(),
})

export const CommitReq = namedObject(
  'CommitReq',
  {
    files: Manifest,
    delete_missing: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'Delete the push-managed documents of the base (under `prefix`) that the manifest does not list; documents uploaded by hand or upserted are kept.',
      }),
    ),
    prefix: Prefix,
  },
  { additionalProperties: false },
)

export const RunErrorSchema = namedObject('RunErrorSchema', {
  path: Type.String(),
  document_id: Type.Union([Type.String(), Type.Null()]),
  error: Type.String(),
  code: Type.Optional(
    Type.String({
      description:
        "An error code when one applies: `plan_limit_reached` when the file would have taken the workspace past its plan's documents or storage cap (it was not taken; the next sync tries it again).",
    }),
  ),
})

export const SyncRunResp = namedObject('SyncRunResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  source: Type.String({
    description: '`upload`, `push` (commit and upsert), `sync` (a source) or `import` (a one-time import).',
  }),
  status: Type.String({
    description:
      '`running` while a source is listed and documents are processed; then `succeeded`, `partial` (some documents failed), `failed` (all failed, or the source could not be read: see `error`) or `canceled`.',
  }),
  created: Type.Integer({ description: 'Documents added.' }),
  updated: Type.Integer({ description: 'Documents given new content in place (same id).' }),
  unchanged: Type.Integer({ description: 'Documents whose content was already there.' }),
  deleted: Type.Integer({
    description: 'Documents removed: the manifest no longer lists them, or their file is gone at the source.',
  }),
  failed: Type.Integer({
    description: 'Files of this run that could not be taken or processed (see errors).',
  }),
  pending: Type.Integer({ description: 'Documents still being processed.' }),
  errors: Type.Array(RunErrorSchema, { description: 'Per-file failures (the first 1000).' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description:
      'Why the whole run failed or stopped (a source unreachable, credentials refused), if it did.',
  }),
  source_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The source (or import) this run synced; null for uploads and pushes.',
  }),
  job_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The sync job listing the source: `GET /jobs/{id}` gives its progress and estimate.',
  }),
  started_at: Timestamp,
  finished_at: Type.Union([Timestamp, Type.Null()]),
})

export const SyncRunParams = Type.Object({
  corpus_id: Type.String({ maxLength: 64 }),
  run_id: Type.String({ maxLength: 64 }),
})

export const UpsertReq = namedObject(
  'UpsertReq',
  {
    path: Path,
    content: Type.String({ description: 'The file content: text, or base64 when `encoding` is `base64`.' }),
    encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { default: 'utf8' })),
    content_type: Type.Optional(
      Type.String({ maxLength: 200, description: 'Declared type (a `charset` is honoured for text).' }),
    ),
  },
  { additionalProperties: false },
)

export const UploadForm = namedObject('UploadForm', {
  files: Type.Array(Type.String({ format: 'binary' }), {
    description:
      "One or more files; each part's filename is its relative path in the base (folders kept, `\\` read as `/`).",
  }),
})

export const UpsertResp = namedObject('UpsertResp', {
  result: Type.String({ description: '`created`, `updated` or `unchanged`.' }),
  document: DocumentResp,
  sync_run: SyncRunResp,
})
