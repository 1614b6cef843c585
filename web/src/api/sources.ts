/**
 * Connections and the kinds of source they can be, the sources of a base, their sync runs and the
 * base's imports (`/v1/connections`, `/v1/source-kinds`, `/v1/corpora/{id}/sources`, `/sync-runs`,
 * `/import`, `/import-status`).
 */
import { http, listAll, ok } from './client'
import type {
  Connection,
  ConnectionReq,
  ImportStatus,
  Source,
  SourceKindState,
  SourceReq,
  SyncRun,
} from './types'

const base = (id: string) => ({ path: { corpus_id: id } })
const source = (s: { corpus_id: string; id: string }) => ({
  path: { corpus_id: s.corpus_id, source_id: s.id },
})

/** The workspace's connections (their secrets never come back). */
export function listConnections(signal?: AbortSignal): Promise<Connection[]> {
  return listAll((cursor) =>
    ok(http.GET('/v1/connections', { params: { query: { limit: 100, cursor } }, signal })),
  )
}

/** Creates a connection (an admin's). */
export function createConnection(body: ConnectionReq): Promise<Connection> {
  return ok(http.POST('/v1/connections', { body }))
}

/** Deletes a connection no source uses (an admin's). */
export async function deleteConnection(id: string): Promise<void> {
  await http.DELETE('/v1/connections/{connection_id}', { params: { path: { connection_id: id } } })
}

/** The kinds of source this workspace can connect, and why one is off. */
export async function listSourceKinds(signal?: AbortSignal): Promise<SourceKindState[]> {
  return (await ok(http.GET('/v1/source-kinds', { signal }))).kinds
}

/** The base's sources. */
export function listSources(baseId: string, signal?: AbortSignal): Promise<Source[]> {
  return listAll((cursor) =>
    ok(
      http.GET('/v1/corpora/{corpus_id}/sources', {
        params: { path: { corpus_id: baseId }, query: { limit: 100, cursor } },
        signal,
      }),
    ),
  )
}

/** Adds a source to the base. */
export function createSource(baseId: string, body: SourceReq): Promise<Source> {
  return ok(http.POST('/v1/corpora/{corpus_id}/sources', { params: base(baseId), body }))
}

/** Checks that a sync of the source could run; refuses with the reason (an `ApiError`) if not. */
export function validateSource(s: { corpus_id: string; id: string }): Promise<{ checked_at: string }> {
  return ok(http.POST('/v1/corpora/{corpus_id}/sources/{source_id}/validate', { params: source(s) }))
}

/** Starts a sync of the source now. */
export async function syncSource(s: Source): Promise<void> {
  await http.POST('/v1/corpora/{corpus_id}/sources/{source_id}/sync', { params: source(s) })
}

/** Stops the source's running sync. */
export async function cancelSync(s: Source): Promise<void> {
  await http.POST('/v1/corpora/{corpus_id}/sources/{source_id}/cancel', { params: source(s) })
}

/** Sets how often the source syncs by itself (null: only when asked). */
export async function setSchedule(s: Source, intervalMinutes: number | null): Promise<void> {
  await http.PUT('/v1/corpora/{corpus_id}/sources/{source_id}', {
    params: source(s),
    body: { interval_minutes: intervalMinutes },
  })
}

/** Deletes the source, and its documents with `deleteDocuments`; answers how many documents went. */
export async function deleteSource(s: Source, deleteDocuments: boolean): Promise<number> {
  const out = await ok(
    http.DELETE('/v1/corpora/{corpus_id}/sources/{source_id}', {
      params: { ...source(s), query: { delete_documents: deleteDocuments } },
    }),
  )
  return out.deleted_documents
}

/** The latest hundred runs of the base (uploads and pushes too), newest first. */
export async function latestRuns(baseId: string, signal?: AbortSignal): Promise<SyncRun[]> {
  const page = await ok(
    http.GET('/v1/corpora/{corpus_id}/sync-runs', {
      params: { path: { corpus_id: baseId }, query: { limit: 100 } },
      signal,
    }),
  )
  return page.items
}

/** The base's latest import. */
export function getImportStatus(baseId: string, signal?: AbortSignal): Promise<ImportStatus> {
  return ok(http.GET('/v1/corpora/{corpus_id}/import-status', { params: base(baseId), signal }))
}

/** Starts a one-time copy of `folder` into the base through a connection. */
export async function startImport(baseId: string, connectionId: string, folder: string): Promise<void> {
  await http.POST('/v1/corpora/{corpus_id}/import', {
    params: base(baseId),
    body: { connection_id: connectionId, folder },
  })
}
