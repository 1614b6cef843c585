import { type TObject, Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { NameString } from '../../platform/http/text-formats'
import { SyncRunResp } from '../ingest/ingest.schemas'
import { syncRunResp } from '../ingest/ingest.service'
import { SOURCE_KINDS } from './connectors/connector'
import type { Connection } from './sources.connections'
import type { SourceView } from './sources.service'

const Timestamp = Type.String({ format: 'date-time' })
const Nullable = <T extends ReturnType<typeof Type.String | typeof Type.Integer>>(s: T) =>
  Type.Union([s, Type.Null()])
const Fields = Type.Record(Type.String(), Type.Unknown())
const at = (ms: number | null) => (ms === null ? null : iso(new Date(ms)))

export const KindString = Type.String({
  maxLength: 32,
  description: `The kind of source: ${SOURCE_KINDS.map((k) => `\`${k}\``).join(', ')}.`,
})

export const ConnectionReq = namedObject('ConnectionReq', {
  kind: KindString,
  name: NameString({ minLength: 1, maxLength: 120, description: 'A name people recognise (trimmed).' }),
  settings: Type.Optional(Fields),
  secrets: Type.Optional(Fields),
})

export const ConnectionUpdateReq = namedObject('ConnectionUpdateReq', {
  name: Type.Optional(NameString({ minLength: 1, maxLength: 120 })),
  settings: Type.Optional(Fields),
  secrets: Type.Optional(Fields),
})

export const ConnectionResp = namedObject('ConnectionResp', {
  id: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  settings: Fields,
  secrets_set: Type.Array(Type.String(), {
    description: 'Secret fields that hold a value. Secrets are write-only: their values are never returned.',
  }),
  sources: Type.Integer({ description: 'Sources and imports using this connection.' }),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const SourceKindsResp = namedObject('SourceKindsResp', {
  kinds: Type.Array(
    Type.Object({
      kind: Type.String(),
      enabled: Type.Boolean({ description: 'Whether this workspace can use the kind on this server now.' }),
      reason: Type.Union([Type.String(), Type.Null()], {
        description: 'Why the kind is off for this workspace (null when enabled).',
      }),
    }),
    { description: 'Every kind of source the server knows, in the order to offer them.' },
  ),
})

export const SourceReq = namedObject('SourceReq', {
  connection_id: Type.String({ maxLength: 64 }),
  folder: Type.String({
    maxLength: 2048,
    description:
      's3: a key prefix; folder: an absolute directory under an allowed root; gdrive: a folder id; sharepoint: a path in the library.',
  }),
  name: Type.Optional(NameString({ minLength: 1, maxLength: 120 })),
  path_prefix: Type.Optional(
    Type.String({ maxLength: 1024, description: 'Where the files land in the base (default: its root).' }),
  ),
  interval_minutes: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 525_600 }), Type.Null()], {
      description: 'Minutes between scheduled syncs; null or absent: only on demand.',
    }),
  ),
})

export const SourceUpdateReq = namedObject('SourceUpdateReq', {
  connection_id: Type.Optional(Type.String({ maxLength: 64 })),
  folder: Type.Optional(Type.String({ maxLength: 2048 })),
  name: Type.Optional(NameString({ minLength: 1, maxLength: 120 })),
  path_prefix: Type.Optional(Type.String({ maxLength: 1024 })),
  interval_minutes: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 525_600 }), Type.Null()])),
})

export const SourceResp = namedObject('SourceResp', {
  id: Type.String(),
  corpus_id: Type.String(),
  connection_id: Type.String(),
  kind: Type.String(),
  name: Type.String(),
  folder: Type.String(),
  path_prefix: Type.String(),
  interval_minutes: Nullable(Type.Integer()),
  next_sync_at: Nullable(Timestamp),
  syncing: Type.Boolean({ description: 'A sync of this source is listing it now.' }),
  current_run: Type.Union([SyncRunResp, Type.Null()]),
  last_run: Type.Union([SyncRunResp, Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
})

export const ValidateResp = namedObject('SourceValidateResp', {
  ok: Type.Literal(true),
  kind: Type.String(),
  folder: Type.String(),
  checked_at: Timestamp,
})

export const SourceParams = Type.Object({
  corpus_id: Type.String({ maxLength: 64 }),
  source_id: Type.String({ maxLength: 64 }),
})
export const ConnectionParams = Type.Object({ connection_id: Type.String({ maxLength: 64 }) })
export const DeleteSourceQuery = Type.Object({
  delete_documents: Type.Optional(
    Type.Boolean({ description: 'Also delete the documents this source brought (each with a receipt).' }),
  ),
})

export const SourceDeleteResp = namedObject('SourceDeleteResp', {
  deleted_documents: Type.Integer({ description: 'Documents deleted with the source (0 unless asked).' }),
})

export const ImportReq = namedObject('ImportReq', {
  connection_id: Type.String({ maxLength: 64 }),
  folder: Type.String({
    maxLength: 2048,
    description: 'The folder to copy, as for a source of the same kind.',
  }),
  path_prefix: Type.Optional(Type.String({ maxLength: 1024 })),
})

export const ImportStatusResp = namedObject('ImportStatusResp', {
  state: Type.String({
    description: '`none` (never imported), `running`, `succeeded`, `partial`, `failed` or `canceled`.',
  }),
  id: Type.Optional(Type.String()),
  connection_id: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  folder: Type.Optional(Type.String()),
  run: Type.Optional(Type.Union([SyncRunResp, Type.Null()])),
  started_at: Type.Optional(Timestamp),
  finished_at: Type.Optional(Nullable(Timestamp)),
})

/** The wire shape of a connection. */
export function connectionResp(c: Connection) {
  return {
    id: c.id,
    kind: c.kind,
    name: c.name,
    settings: c.settings,
    secrets_set: c.secretsSet,
    sources: c.sources,
    created_at: iso(new Date(c.createdAt)),
    updated_at: iso(new Date(c.updatedAt)),
  }
}

/** The wire shape of a source. */
export function sourceResp(s: SourceView) {
  return {
    id: s.row.id,
    corpus_id: s.row.corpusId,
    connection_id: s.row.connectionId,
    kind: s.kind,
    name: s.row.name,
    folder: s.row.folder,
    path_prefix: s.row.pathPrefix,
    interval_minutes: s.row.intervalMinutes,
    next_sync_at: at(s.row.nextSyncAt),
    syncing: s.currentRun !== null && s.currentRun.listing === 1,
    current_run: s.currentRun ? syncRunResp(s.currentRun) : null,
    last_run: s.lastRun ? syncRunResp(s.lastRun) : null,
    created_at: at(s.row.createdAt)!,
    updated_at: at(s.row.updatedAt)!,
  }
}

/** Per-kind fields for the OpenAPI description of connections: name, required or not, and what it is. */
export function describeKinds(kinds: { kind: string; settings: TObject; secrets: TObject }[]): string {
  const fields = (o: TObject) =>
    Object.entries(o.properties)
      .map(
        ([k, v]) =>
          `\`${k}\`${o.required?.includes(k) ? ' (required)' : ''}${v.description ? `: ${v.description}` : ''}`,
      )
      .join('; ') || 'none'
  return kinds
    .map((k) => `- \`${k.kind}\`: settings ${fields(k.settings)}. Secrets ${fields(k.secrets)}.`)
    .join('\n')
}
