// The `sharepoint` kind: one folder of a SharePoint document library (a Graph drive), listed with the
// drive's delta query so that a sync after the first asks only for what changed, deletions included.
import { Type } from '@sinclair/typebox'
import {
  type ConnectorEnv,
  type ConnectorKind,
  type SourceChange,
  type SourceConnector,
  SourceError,
  type SourceFile,
  type SourceListing,
} from './connector'
import { PageProgress } from './run'
import { changeOf, type DeltaPage, type DriveItem, DrivePaths } from './sharepoint.delta'
import { GRAPH, GraphApi } from './sharepoint.graph'
import { statusError } from './sharepoint.http'
import { ClientCredentials } from './sharepoint.token'

const settings = Type.Object(
  {
    tenant_id: Type.String({
      description: 'Directory (tenant) id of the Microsoft Entra tenant: its GUID or a verified domain.',
      pattern: '^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$',
    }),
    client_id: Type.String({
      description:
        'Application (client) id of the app registration; it needs the Sites.Read.All or Files.Read.All application permission.',
      pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$',
    }),
    drive_id: Type.Optional(
      Type.String({
        description: 'Id of the document library (a Graph drive, `b!...`). Give this or site_id; this wins.',
        pattern: '^[A-Za-z0-9!_.,:-]{1,256}$',
      }),
    ),
    site_id: Type.Optional(
      Type.String({
        description:
          'Id of the SharePoint site (`host,site-collection-id,web-id`); its default library is read. Give this or drive_id.',
        pattern: '^[A-Za-z0-9!_.,:-]{1,512}$',
      }),
    ),
  },
  { additionalProperties: false },
)

const secrets = Type.Object(
  {
    client_secret: Type.String({
      description: 'A client secret of the app registration (its value, not its id).',
      minLength: 1,
      maxLength: 1024,
    }),
  },
  { additionalProperties: false },
)

/** Characters SharePoint refuses in file and folder names, and control characters. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FORBIDDEN = /["*:<>?\\|\u0000-\u001f\u007f]/

/** Longest path SharePoint accepts for an item (decoded), in characters. */
const MAX_PATH = 400

/** A folder inside the library, `/`-separated, without leading or trailing slash; '' is the library's root. */
function normalizeFolder(raw: string): string {
  if (FORBIDDEN.test(raw)) {
    throw new SourceError(
      'invalid_folder',
      'A library folder may not contain control characters or any of " * : < > ? \\ |.',
    )
  }
  const segments = raw.split('/').filter((s) => s.trim() !== '')
  if (segments.some((s) => s === '.' || s === '..')) {
    throw new SourceError('invalid_folder', 'A library folder may not contain "." or ".." segments.')
  }
  const folder = segments.join('/')
  if (folder.length > MAX_PATH) {
    throw new SourceError('invalid_folder', `A library folder is at most ${MAX_PATH} characters.`)
  }
  return folder
}

class SharePointConnector implements SourceConnector {
  private readonly api: GraphApi
  private drive: Promise<string> | null = null

  constructor(
    private readonly s: { driveId?: string; siteId?: string },
    private readonly folder: string,
    private readonly env: ConnectorEnv,
    tokens: ClientCredentials,
  ) {
    this.api = new GraphApi(env, tokens)
  }

  async validate(): Promise<void> {
    await this.folderItem()
  }

  async list(cursor: string | null): Promise<SourceListing> {
    const complete = cursor === null
    let start: string
    if (cursor === null) {
      await this.folderItem()
      start = `/drives/${encodeURIComponent(await this.driveId())}/root/delta`
    } else {
      const path = this.api.pathOf(cursor)
      if (path === null)
        throw new SourceError('cursor_expired', 'The saved delta link is not for this Graph API.')
      start = path
    }
    // The first page is asked for here, so an expired delta link fails `list` itself.
    const first = await this.page(start)
    const paths = new DrivePaths(this.api, await this.driveId())
    let deltaLink: string | null = null
    const changes = this.changes(first, paths, complete, (link) => {
      deltaLink = link
    })
    return { complete, changes, nextCursor: () => deltaLink }
  }

  async read(file: SourceFile, maxBytes: number): Promise<Uint8Array> {
    const tooLarge = new SourceError('file_too_large', `"${file.path}" is larger than ${maxBytes} bytes.`)
    if (file.size > maxBytes) throw tooLarge
    const drive = encodeURIComponent(await this.driveId())
    const res = await this.api.get(`/drives/${drive}/items/${encodeURIComponent(file.id)}/content`)
    if (!res.ok) {
      await res.body?.cancel()
      const gone = new SourceError('file_not_found', `"${file.path}" is no longer in the library.`)
      throw statusError(res, GRAPH, this.env, gone)
    }
    return readAtMost(res, maxBytes, tooLarge)
  }

  /** Yields the changes of each page as it arrives, then records the delta link. */
  private async *changes(
    first: DeltaPage,
    paths: DrivePaths,
    complete: boolean,
    done: (deltaLink: string) => void,
  ): AsyncGenerator<SourceChange> {
    let page = first
    // The run's checkpoint before every page, and an end to a delta that goes nowhere.
    const progress = new PageProgress("The library's delta listing", this.env)
    for (;;) {
      for (const item of page.value ?? []) {
        const change = await changeOf(item, this.folder, paths, complete)
        if (change) yield change
      }
      const next = page['@odata.nextLink']
      progress.after(page.value?.length ?? 0, next ?? null)
      if (!next) break
      const path = this.api.pathOf(next)
      if (path === null)
        throw new SourceError('source_error', `${GRAPH} returned a page link outside its API.`)
      progress.before()
      page = await this.page(path)
    }
    const deltaLink = page['@odata.deltaLink']
    if (!deltaLink) throw new SourceError('source_error', `${GRAPH} ended a delta without a delta link.`)
    done(deltaLink)
  }

  private page(path: string): Promise<DeltaPage> {
    return this.api.json<DeltaPage>(path)
  }

  /** The source folder's item; a missing folder, or a file where the folder should be, is `folder_not_found`. */
  private async folderItem(): Promise<DriveItem> {
    const drive = encodeURIComponent(await this.driveId())
    const where = this.folder ? `root:/${this.folder.split('/').map(encodeURIComponent).join('/')}` : 'root'
    const missing = new SourceError('folder_not_found', `The library has no folder "${this.folder || '/'}".`)
    const item = await this.api.json<DriveItem>(
      `/drives/${drive}/${where}?$select=id,name,root,folder`,
      missing,
    )
    if (!item.folder && !item.root) throw missing
    return item
  }

  /** The drive to read: drive_id, or the default library of site_id (asked once). */
  private driveId(): Promise<string> {
    if (!this.drive) {
      this.drive = this.lookUpDrive()
      // A failed lookup (the network, a rate limit) is asked again next time rather than remembered.
      this.drive.catch(() => {
        this.drive = null
      })
    }
    return this.drive
  }

  private async lookUpDrive(): Promise<string> {
    if (this.s.driveId) return this.s.driveId
    if (!this.s.siteId) {
      throw new SourceError('bad_credentials', 'A SharePoint connection needs a drive_id or a site_id.')
    }
    const missing = new SourceError('folder_not_found', 'The SharePoint site was not found.')
    const drive = await this.api.json<{ id?: string }>(
      `/sites/${encodeURIComponent(this.s.siteId)}/drive?$select=id`,
      missing,
    )
    if (!drive.id) throw missing
    return drive.id
  }
}

/** Reads a body, refusing once it passes `maxBytes` without holding more than that. */
async function readAtMost(res: Response, maxBytes: number, tooLarge: SourceError): Promise<Uint8Array> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN)
  if (declared > maxBytes || !res.body) {
    await res.body?.cancel()
    if (declared > maxBytes) throw tooLarge
    return new Uint8Array()
  }
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = res.body.getReader()
  for (;;) {
    const { done, value } = await reader.read().catch((e: unknown) => {
      throw e instanceof Error && e.name === 'TimeoutError'
        ? new SourceError('unreachable', `${GRAPH} did not send the file in time.`)
        : new SourceError('unreachable', `${GRAPH} broke off while sending the file.`)
    })
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel()
      throw tooLarge
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/** The `sharepoint` kind of source. */
export const sharepointKind: ConnectorKind = {
  kind: 'sharepoint',
  settings,
  secrets,
  folder: async (raw) => normalizeFolder(raw),
  open({ settings: s, secrets: k, folder, env }) {
    const tokens = new ClientCredentials(env, {
      tenantId: String(s.tenant_id ?? ''),
      clientId: String(s.client_id ?? ''),
      clientSecret: String(k.client_secret ?? ''),
    })
    const drive = {
      driveId: typeof s.drive_id === 'string' && s.drive_id ? s.drive_id : undefined,
      siteId: typeof s.site_id === 'string' && s.site_id ? s.site_id : undefined,
    }
    return new SharePointConnector(drive, normalizeFolder(folder), env, tokens)
  },
}
