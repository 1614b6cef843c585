// What every kind of source (s3, folder, gdrive, sharepoint) implements, and what a sync asks of it.
// A connector only reads the source; the sync (sources.sync.ts) decides what becomes a document.
import type { TObject } from '@sinclair/typebox'
import type { Clock } from '../../../platform/clock/clock'
import type { Config } from '../../../platform/config/config.load'
import type { Logger } from '../../../platform/log/log'

export const SOURCE_KINDS = ['s3', 'folder', 'gdrive', 'sharepoint'] as const
export type SourceKind = (typeof SOURCE_KINDS)[number]

/** One file at the source. */
export interface SourceFile {
  /** Stable id at the source: the S3 key, the path under the folder, the Drive file id, the Graph item id. */
  id: string
  /** Path relative to the source's folder, `/`-separated, no leading slash; becomes the document path. */
  path: string
  /** Changes whenever the content does: the ETag, mtime and size, the Drive md5 or version, the Graph cTag. */
  version: string
  /** Bytes, when known before reading (exported Google files: unknown, -1). */
  size: number
  /** Last modification, epoch milliseconds, when known. */
  modifiedAt: number | null
  /** Content type the source gives (an exported Google file: the export's), or null. */
  contentType: string | null
}

/** One entry of a listing: a file present (new, changed or unchanged), or one gone from the folder. */
export type SourceChange = { kind: 'file'; file: SourceFile } | { kind: 'removed'; id: string }

export interface SourceListing {
  /**
   * True when `changes` lists every file under the folder (a full listing): a file not listed is
   * gone. False for a delta from a cursor: only what changed, removals included.
   */
  complete: boolean
  changes: AsyncIterable<SourceChange>
  /**
   * Once `changes` is exhausted: the cursor the next sync starts from (Drive's start page token,
   * Graph's delta link), or null for kinds that always list everything (s3, folder).
   */
  nextCursor(): string | null
}

/** An open connection to one folder of one source. */
export interface SourceConnector {
  /** Checks reachability, credentials, permission and that the folder exists; throws SourceError. */
  validate(): Promise<void>
  /**
   * Lists the folder: everything when `cursor` is null, else the changes since it. A cursor the
   * source no longer accepts throws SourceError `cursor_expired`; the sync then lists everything.
   */
  list(cursor: string | null): Promise<SourceListing>
  /** The content of one file, refusing past `maxBytes` (SourceError `file_too_large`) without reading it all. */
  read(file: SourceFile, maxBytes: number): Promise<Uint8Array>
}

/** What connectors are given: configuration, a guarded way out, time and a log. */
export interface ConnectorEnv {
  config: Config['sources']
  /**
   * `fetch` through the outbound guard (src/platform/net/egress.ts): every destination and redirect
   * judged, the connection made to the judged address, credentials kept from other origins.
   */
  fetch: typeof fetch
  /**
   * Throws EgressDenied for a destination requests may not reach; otherwise returns the judged
   * addresses, the only ones a connection to it may use. Call before a library connects.
   */
  checkHost(urlOrHost: string): Promise<string[]>
  clock: Clock
  log: Logger
  /**
   * Set for a sync or import run (run.ts `forRun`): aborted when the run must stop (canceled, its
   * source deleted, its time budget spent). Pass it to every request.
   */
  signal?: AbortSignal
  /**
   * Set for a sync or import run: throws when the run must stop. Call it before every page of a
   * listing and every request, so a stop takes effect within one page.
   */
  checkpoint?(): void
}

/** One kind of source: the shapes of its connection fields and how to open it. */
export interface ConnectorKind {
  kind: SourceKind
  /** Connection fields that are not secret (shown back by the API). */
  settings: TObject
  /** Secret connection fields: stored encrypted, never shown back. */
  secrets: TObject
  /**
   * Checks and normalizes a source folder for this kind (a key prefix, an absolute directory, a
   * Drive folder id, a library path); throws SourceError `invalid_folder` or `root_not_allowed`.
   * `workspaceId` is whose source it is: server folders are granted per workspace, and without it
   * none is.
   */
  folder(raw: string, env: ConnectorEnv, workspaceId?: string): Promise<string>
  /**
   * Why the workspace cannot use this kind on this server (a server folder with no folder granted
   * to it), or null when it can. Absent: always usable.
   */
  unavailable?(env: ConnectorEnv, workspaceId: string): Promise<string | null>
  open(c: {
    settings: Record<string, unknown>
    secrets: Record<string, unknown>
    folder: string
    env: ConnectorEnv
    /** Whose source it is (a folder source reads only the roots granted to it). */
    workspaceId?: string
  }): SourceConnector
}

/** What went wrong at a source, in terms the API words for the person (sources.errors.ts). */
export type SourceErrorCode =
  | 'unreachable'
  | 'bad_credentials'
  | 'permission_denied'
  | 'folder_not_found'
  | 'invalid_folder'
  | 'root_not_allowed'
  | 'egress_denied'
  | 'rate_limited'
  | 'source_error'
  | 'file_too_large'
  | 'file_not_found'
  | 'cursor_expired'
  | 'no_progress'

export class SourceError extends Error {
  override name = 'SourceError'
  constructor(
    readonly code: SourceErrorCode,
    message: string,
    /** `rate_limited` and `source_error` (a 5xx): how long the source asked us to wait, when it said. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }

  /** A failure worth retrying later: the source is busy, down or unreachable. */
  get transient(): boolean {
    return this.code === 'rate_limited' || this.code === 'source_error' || this.code === 'unreachable'
  }
}

/** Reads a `Retry-After` header (seconds or an HTTP date) as milliseconds from `now`; null when absent. */
export function retryAfterMs(header: string | null, now: number): number | null {
  if (!header) return null
  const seconds = Number(header)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(header)
  return Number.isFinite(at) ? Math.max(0, at - now) : null
}

/** Joins a folder and a path relative to it with `/`, and drops a leading slash. */
export function relativeTo(folder: string, path: string): string {
  const f = folder.replace(/^\/+|\/+$/g, '')
  const p = path.replace(/^\/+/, '')
  if (!f) return p
  return p.startsWith(`${f}/`) ? p.slice(f.length + 1) : p
}
