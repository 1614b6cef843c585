// The `gdrive` source kind: one Google Drive folder (in My Drive or a shared drive), listed in full
// through files.list and afterwards through the changes feed from a saved start page token.
import type { drive_v3 } from '@googleapis/drive'
import { Type } from '@sinclair/typebox'
import { EgressDenied } from '../../../platform/net/egress'
import type {
  ConnectorEnv,
  ConnectorKind,
  SourceChange,
  SourceConnector,
  SourceFile,
  SourceListing,
} from './connector'
import { driveClient, driveError, FILE_FIELDS, type GdriveCredentials } from './gdrive.client'
import {
  call,
  type DriveScope,
  driveParams,
  EXPORTS,
  FOLDER_MIME,
  fromChange,
  ParentPaths,
  walk,
} from './gdrive.listing'
import { PageProgress } from './run'

const DRIVE_ID = '^[A-Za-z0-9_-]{10,200}$'

const settings = Type.Object(
  {
    auth: Type.Union([Type.Literal('service_account'), Type.Literal('oauth')], {
      description:
        '`service_account`: a service account key (client_email, private_key), with the folder shared with it; `oauth`: an OAuth client and a user refresh token (client_id, client_secret, refresh_token).',
    }),
    client_email: Type.Optional(
      Type.String({
        pattern: '^[^@\\s]+@[^@\\s]+$',
        maxLength: 320,
        description:
          "The service account's email (`client_email` of its JSON key); required with `service_account`.",
      }),
    ),
    client_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'The OAuth client id; required with `oauth`.',
      }),
    ),
    shared_drive_id: Type.Optional(
      Type.String({
        pattern: DRIVE_ID,
        description: 'The shared drive the folder is in; omit for a folder in My Drive.',
      }),
    ),
  },
  { additionalProperties: false },
)

const secrets = Type.Object(
  {
    private_key: Type.Optional(
      Type.String({
        pattern: '-----BEGIN [A-Z ]*PRIVATE KEY-----',
        maxLength: 10_000,
        description:
          "The service account's PEM private key (`private_key` of its JSON key); required with `service_account`.",
      }),
    ),
    client_secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        description: 'The OAuth client secret; required with `oauth`.',
      }),
    ),
    refresh_token: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2048,
        description: 'A refresh token granted with the drive.readonly scope; required with `oauth`.',
      }),
    ),
  },
  { additionalProperties: false },
)

const text = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined)

/** The credentials of the chosen mode, or `bad_credentials` naming the fields it lacks (never their values). */
function credentials(s: Record<string, unknown>, x: Record<string, unknown>): GdriveCredentials {
  if (s.auth !== 'oauth' && s.auth !== 'service_account') {
    throw driveError('bad_credentials', null, 'Unknown auth mode.')
  }
  const c: GdriveCredentials = {
    auth: s.auth,
    clientEmail: text(s.client_email),
    // A key copied out of the JSON key file often keeps its escaped line breaks.
    privateKey: text(x.private_key)?.replace(/\\n/g, '\n'),
    clientId: text(s.client_id),
    clientSecret: text(x.client_secret),
    refreshToken: text(x.refresh_token),
  }
  const needed =
    c.auth === 'oauth'
      ? { client_id: c.clientId, client_secret: c.clientSecret, refresh_token: c.refreshToken }
      : { client_email: c.clientEmail, private_key: c.privateKey }
  const missing = Object.entries(needed).filter(([, v]) => !v)
  if (missing.length > 0) {
    throw driveError('bad_credentials', null, `Missing: ${missing.map(([k]) => k).join(', ')}.`)
  }
  return c
}

/** Reads a download, refusing once it passes `maxBytes` without reading further. */
async function readCapped(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    total += r.value.length
    if (total > maxBytes) {
      await reader.cancel()
      throw driveError('file_too_large')
    }
    chunks.push(r.value)
  }
  return Buffer.concat(chunks, total)
}

class DriveConnector implements SourceConnector {
  private resolved: Promise<DriveScope> | null = null

  constructor(
    private readonly credentials: GdriveCredentials,
    private readonly folder: string,
    private readonly sharedDriveId: string | null,
    private readonly env: ConnectorEnv,
  ) {}

  /**
   * The scope of calls on the source folder, found once per connector (not again for every read):
   * the guard's verdict on both destinations first, then the folder, with `root` (or a shared
   * drive's root) resolved to its id. A failure is not kept, so the next call asks again.
   */
  private scope(): Promise<DriveScope> {
    this.resolved ??= this.resolve().catch((e) => {
      this.resolved = null
      throw e
    })
    return this.resolved
  }

  private async resolve(): Promise<DriveScope> {
    try {
      await this.env.checkHost(this.env.config.gdrive_api_url)
      await this.env.checkHost(this.env.config.google_token_url)
    } catch (e) {
      throw e instanceof EgressDenied ? driveError('egress_denied', null, e.message) : e
    }
    const d: DriveScope = {
      api: await driveClient(this.credentials, this.env),
      env: this.env,
      folderId: this.folder,
      sharedDriveId: this.sharedDriveId,
    }
    const fileId = this.folder === 'root' && this.sharedDriveId ? this.sharedDriveId : this.folder
    const params = { fileId, fields: 'id,mimeType,trashed', ...driveParams(d, 'get') }
    const f = await call(d, () => d.api.files.get(params), 'folder_not_found')
    if (f.mimeType !== FOLDER_MIME || f.trashed || !f.id) throw driveError('folder_not_found')
    return { ...d, folderId: f.id }
  }

  async validate(): Promise<void> {
    const d = await this.scope()
    // Seeing the folder is not listing it: ask for one child, as a sync would.
    const params = { q: `'${d.folderId}' in parents and trashed=false`, pageSize: 1, fields: 'files(id)' }
    await call(d, () => d.api.files.list({ ...params, ...driveParams(d, 'files') }), 'folder_not_found')
  }

  async list(cursor: string | null): Promise<SourceListing> {
    const d = await this.scope()
    if (cursor === null) {
      // The token is taken before the walk, so a change made during it is seen again next time.
      const params = { fields: 'startPageToken', ...driveParams(d, 'token') }
      const start = await call(d, () => d.api.changes.getStartPageToken(params), 'source_error')
      const next = start.startPageToken ?? null
      return { complete: true, changes: asChanges(walk(d, d.folderId, '')), nextCursor: () => next }
    }
    const feed = new ChangesFeed(d, cursor)
    // The first page is fetched now, so a token Drive no longer accepts fails here, as the contract says.
    await feed.fetch()
    return { complete: false, changes: feed.entries(), nextCursor: () => feed.next }
  }

  async read(file: SourceFile, maxBytes: number): Promise<Uint8Array> {
    const d = await this.scope()
    // Asked first: a trashed file still downloads, and a native one must be exported, not fetched.
    const getParams = { fileId: file.id, fields: FILE_FIELDS, ...driveParams(d, 'get') }
    const f = await call(d, () => d.api.files.get(getParams), 'file_not_found')
    if (f.trashed || f.mimeType === FOLDER_MIME) throw driveError('file_not_found')
    const exported = EXPORTS[f.mimeType ?? '']
    if (!exported && f.size != null && Number(f.size) > maxBytes) throw driveError('file_too_large')
    const stream = { responseType: 'stream' as const }
    const body = await call(
      d,
      () =>
        exported
          ? d.api.files.export({ fileId: file.id, mimeType: exported.type }, stream)
          : d.api.files.get({ fileId: file.id, alt: 'media', ...driveParams(d, 'get') }, stream),
      'file_not_found',
    )
    return readCapped(body as unknown as ReadableStream<Uint8Array>, maxBytes)
  }
}

async function* asChanges(files: AsyncIterable<SourceFile>): AsyncGenerator<SourceChange> {
  for await (const file of files) yield { kind: 'file', file }
}

/** The changes feed from a saved token: page after page up to Drive's new start page token. */
class ChangesFeed {
  next: string | null = null
  private page: drive_v3.Schema$ChangeList | null = null
  private readonly paths: ParentPaths
  private readonly progress: PageProgress

  constructor(
    private readonly d: DriveScope,
    private pageToken: string,
  ) {
    this.paths = new ParentPaths(d)
    this.progress = new PageProgress("The Drive changes feed's listing", d.env)
  }

  async fetch(): Promise<void> {
    this.progress.before()
    const fields = `nextPageToken,newStartPageToken,changes(changeType,fileId,removed,file(${FILE_FIELDS}))`
    const params = { pageToken: this.pageToken, pageSize: 1000, includeRemoved: true, fields }
    this.page = await call(
      this.d,
      () => this.d.api.changes.list({ ...params, ...driveParams(this.d, 'changes') }),
      'cursor_expired',
    )
  }

  async *entries(): AsyncGenerator<SourceChange> {
    while (this.page) {
      for (const c of this.page.changes ?? []) yield* fromChange(this.d, this.paths, c)
      if (this.page.newStartPageToken) {
        this.next = this.page.newStartPageToken
        return
      }
      if (!this.page.nextPageToken)
        throw driveError('source_error', null, 'The changes feed ended without a token.')
      this.progress.after(this.page.changes?.length ?? 0, this.page.nextPageToken)
      this.pageToken = this.page.nextPageToken
      await this.fetch()
    }
  }
}

export const gdriveKind: ConnectorKind = {
  kind: 'gdrive',
  settings,
  secrets,
  async folder(raw: string): Promise<string> {
    const id = raw.trim()
    if (id === 'root' || new RegExp(DRIVE_ID).test(id)) return id
    throw driveError('invalid_folder')
  },
  open({ settings: s, secrets: x, folder, env }): SourceConnector {
    const shared = text(s.shared_drive_id) ?? null
    return new DriveConnector(credentials(s, x), folder, shared, env)
  },
}
