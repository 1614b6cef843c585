// A loopback stand-in for the parts of Microsoft Graph and the Microsoft identity platform that the
// SharePoint connector speaks: the v2.0 client-credentials token endpoint, a site's default drive,
// driveItems by id and by path, the root delta query with paging and delta links, deleted items,
// and `/content` answering with a 302 to a download URL on the same server. Every change bumps a
// sequence number; a delta link carries the sequence it was issued at, so the next delta lists what
// changed since. Faults (an expired token, 429/503 with Retry-After, 403, 410) are injected by tests.

interface Item {
  id: string
  name: string
  parentId: string | null
  folder: boolean
  content: Uint8Array<ArrayBuffer>
  mimeType: string
  version: number
  seq: number
  deleted: boolean
  modifiedAt: string
}

export interface GraphStandinOptions {
  tenantId?: string
  clientId?: string
  clientSecret?: string
  /** Items a delta page holds. */
  pageSize?: number
}

interface Fault {
  status: number
  headers?: Record<string, string>
}

const enc = new TextEncoder()

export class GraphStandin {
  readonly tenantId: string
  readonly clientId: string
  readonly clientSecret: string
  readonly driveId = 'b!standinDrive_01'
  readonly siteId = 'contoso.sharepoint.com,1111,2222'
  pageSize: number
  /** Seconds a token is said to live (`expires_in`). */
  tokenLifetime = 3599
  /** Every request's method and path (with query), in order; the token endpoint's too. */
  readonly requests: string[] = []
  /** Download requests that arrived with an Authorization header (a leaked Graph token). */
  downloadsWithAuthorization = 0
  tokensIssued = 0
  /** When set, every Graph request answers 403. */
  forbidden = false

  private readonly server: ReturnType<typeof Bun.serve>
  private readonly items = new Map<string, Item>()
  private readonly validTokens = new Set<string>()
  private readonly faults: Fault[] = []
  private seq = 0
  private nextId = 1
  /** Delta links issued before this sequence answer 410 Gone. */
  private oldestDelta = 0

  constructor(o: GraphStandinOptions = {}) {
    this.tenantId = o.tenantId ?? 'contoso.onmicrosoft.com'
    this.clientId = o.clientId ?? '00000000-0000-4000-8000-000000000001'
    this.clientSecret = o.clientSecret ?? 'standin-secret'
    this.pageSize = o.pageSize ?? 3
    this.items.set('root', this.item('root', '', null, true))
    this.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (req) => this.handle(req) })
  }

  /** Graph's base URL, with its version, as `sources.graph_api_url`. */
  get url(): string {
    return `${this.origin}/v1.0`
  }
  /** The login authority host, as `sources.microsoft_login_url`. */
  get loginUrl(): string {
    return `${this.origin}/login`
  }
  private get origin(): string {
    return `http://127.0.0.1:${this.server.port}`
  }

  stop(): void {
    this.server.stop(true)
  }

  /** Creates or replaces a file at `path` (folders are made as needed); returns its item id. */
  putFile(path: string, content: string | Uint8Array, mimeType = 'text/plain'): string {
    const parts = path.split('/')
    const name = parts.pop() as string
    const parent = this.ensureFolder(parts)
    const existing = this.childNamed(parent.id, name)
    const item =
      existing ?? this.item(`01ITEM${String(this.nextId++).padStart(4, '0')}`, name, parent.id, false)
    item.content = typeof content === 'string' ? enc.encode(content) : new Uint8Array(content)
    item.mimeType = mimeType
    item.version++
    this.touch(item)
    this.items.set(item.id, item)
    return item.id
  }

  /** Deletes the file or folder at `path` (a folder's descendants too); it stays as a tombstone for deltas. */
  delete(path: string): void {
    const item = this.resolve(path)
    if (!item) throw new Error(`no item at ${path}`)
    for (const child of [...this.items.values()].filter((i) => i.parentId === item.id && !i.deleted)) {
      this.delete(`${path}/${child.name}`)
    }
    item.deleted = true
    this.touch(item)
  }

  /** Moves the item at `from` into the folder `toFolder` ('' for the root). */
  move(from: string, toFolder: string): void {
    const item = this.resolve(from)
    if (!item) throw new Error(`no item at ${from}`)
    item.parentId = this.ensureFolder(toFolder.split('/').filter(Boolean)).id
    this.touch(item)
  }

  /** Makes every token issued so far invalid, as if it had expired: Graph answers 401 until a new one. */
  expireTokens(): void {
    this.validTokens.clear()
  }

  /** Makes every delta link issued so far answer 410 Gone (resyncRequired). */
  expireDeltaLinks(): void {
    this.oldestDelta = this.seq + 1
  }

  /** The next Graph request (not the token endpoint) answers `status` with `headers`. */
  failNext(status: number, headers?: Record<string, string>): void {
    this.faults.push({ status, headers })
  }

  private item(id: string, name: string, parentId: string | null, folder: boolean): Item {
    return {
      id,
      name,
      parentId,
      folder,
      content: new Uint8Array(),
      mimeType: '',
      version: 0,
      seq: 0,
      deleted: false,
      modifiedAt: '',
    }
  }

  private touch(item: Item): void {
    item.seq = ++this.seq
    item.modifiedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, this.seq)).toISOString()
  }

  private childNamed(parentId: string, name: string): Item | undefined {
    const lower = name.toLowerCase()
    return [...this.items.values()].find(
      (i) => i.parentId === parentId && !i.deleted && i.name.toLowerCase() === lower,
    )
  }

  private ensureFolder(parts: string[]): Item {
    let at = this.items.get('root') as Item
    for (const part of parts) {
      let next = this.childNamed(at.id, part)
      if (!next) {
        next = this.item(`01FOLD${String(this.nextId++).padStart(4, '0')}`, part, at.id, true)
        this.touch(next)
        this.items.set(next.id, next)
      }
      at = next
    }
    return at
  }

  private resolve(path: string): Item | undefined {
    let at = this.items.get('root')
    for (const part of path.split('/').filter(Boolean)) at = at && this.childNamed(at.id, part)
    return at
  }

  private pathOf(item: Item): string {
    const names: string[] = []
    for (let at: Item | undefined = item; at?.parentId; at = this.items.get(at.parentId))
      names.unshift(at.name)
    return names.join('/')
  }

  /** A driveItem as Graph shows it; delta items leave out `parentReference.path`, as Graph's do. */
  private json(item: Item, forDelta: boolean): Record<string, unknown> {
    if (item.deleted)
      return { id: item.id, deleted: { state: 'deleted' }, parentReference: { driveId: this.driveId } }
    const base: Record<string, unknown> = {
      id: item.id,
      name: item.parentId ? item.name : 'root',
      eTag: `"{${item.id}},${item.seq}"`,
      lastModifiedDateTime: item.modifiedAt,
      size: item.content.byteLength,
    }
    if (!item.parentId) return { ...base, root: {}, folder: { childCount: 0 } }
    const parent = this.items.get(item.parentId) as Item
    const parentPath = this.pathOf(parent).split('/').filter(Boolean).map(encodeURIComponent).join('/')
    base.parentReference = {
      driveId: this.driveId,
      id: parent.id,
      ...(forDelta ? {} : { path: `/drives/${this.driveId}/root:${parentPath ? `/${parentPath}` : ''}` }),
    }
    if (item.folder) return { ...base, folder: { childCount: 0 } }
    return { ...base, cTag: `"c:{${item.id}},${item.version}"`, file: { mimeType: item.mimeType } }
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    this.requests.push(`${req.method} ${url.pathname}${url.search}`)
    if (url.pathname.startsWith('/login/')) return this.token(req, url)
    if (url.pathname.startsWith('/download/')) return this.download(req, url)
    const fault = this.faults.shift()
    if (fault) return Response.json({ error: { code: 'fault', message: 'Injected.' } }, fault)
    const token = (req.headers.get('authorization') ?? '').replace(/^Bearer /, '')
    if (!this.validTokens.has(token)) {
      return error(401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.')
    }
    if (this.forbidden) return error(403, 'accessDenied', 'Access denied.')
    return this.graph(url)
  }

  private async token(req: Request, url: URL): Promise<Response> {
    const tenant = url.pathname.split('/')[2]
    if (tenant !== this.tenantId || !url.pathname.endsWith('/oauth2/v2.0/token')) {
      return Response.json(
        { error: 'invalid_request', error_description: 'AADSTS90002: Tenant not found.' },
        { status: 400 },
      )
    }
    const form = new URLSearchParams(await req.text())
    if (form.get('grant_type') !== 'client_credentials' || !form.get('scope')?.endsWith('/.default')) {
      return Response.json({ error: 'unsupported_grant_type' }, { status: 400 })
    }
    if (form.get('client_id') !== this.clientId || form.get('client_secret') !== this.clientSecret) {
      return Response.json(
        { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret.' },
        { status: 401 },
      )
    }
    const accessToken = `tok-${++this.tokensIssued}`
    this.validTokens.add(accessToken)
    return Response.json({ token_type: 'Bearer', expires_in: this.tokenLifetime, access_token: accessToken })
  }

  private download(req: Request, url: URL): Response {
    if (req.headers.has('authorization')) this.downloadsWithAuthorization++
    const item = this.items.get(url.pathname.slice('/download/'.length))
    if (!item || item.deleted) return new Response('gone', { status: 404 })
    return new Response(item.content, { headers: { 'content-type': item.mimeType } })
  }

  private graph(url: URL): Response {
    const path = decodeURIComponent(url.pathname.replace(/^\/v1\.0/, ''))
    if (path === `/sites/${this.siteId}/drive`) return Response.json({ id: this.driveId })
    const drive = `/drives/${this.driveId}`
    if (!path.startsWith(`${drive}/`)) return error(404, 'itemNotFound', 'The drive was not found.')
    const rest = path.slice(drive.length)
    if (rest === '/root/delta') return this.delta(url)
    if (rest === '/root') return Response.json(this.json(this.items.get('root') as Item, false))
    if (rest.startsWith('/root:'))
      return this.found(this.resolve(rest.slice('/root:'.length).replace(/:$/, '')))
    const content = rest.match(/^\/items\/([^/]+)\/content$/)
    if (content) {
      const item = this.items.get(content[1] as string)
      if (!item || item.deleted || item.folder) return error(404, 'itemNotFound', 'The item was not found.')
      return new Response(null, {
        status: 302,
        headers: { location: `${this.origin}/download/${item.id}?tempauth=sig` },
      })
    }
    const byId = rest.match(/^\/items\/([^/]+)$/)
    if (byId) return this.found(this.items.get(byId[1] as string))
    return error(404, 'itemNotFound', 'Not found.')
  }

  private found(item: Item | undefined): Response {
    if (!item || item.deleted) return error(404, 'itemNotFound', 'The item was not found.')
    return Response.json(this.json(item, false))
  }

  /** One page of the root delta: a full enumeration (parents first), or the changes since a delta link. */
  private delta(url: URL): Response {
    const state = decodeState(url.searchParams.get('$skiptoken') ?? url.searchParams.get('token'))
    const since = state?.since ?? 0
    const upto = state?.upto ?? this.seq
    if (state && since > 0 && since < this.oldestDelta) {
      return error(410, 'resyncRequired', 'The delta link has expired; enumerate the drive again.')
    }
    const all =
      since === 0 ? this.tree() : [...this.items.values()].filter((i) => i.seq > since && i.seq <= upto)
    if (since > 0) all.sort((a, b) => a.seq - b.seq)
    const offset = state?.offset ?? 0
    const page = all.slice(offset, offset + this.pageSize)
    const base = `${this.url}/drives/${this.driveId}/root/delta`
    const body: Record<string, unknown> = { value: page.map((i) => this.json(i, true)) }
    if (offset + this.pageSize < all.length) {
      body['@odata.nextLink'] =
        `${base}?$skiptoken=${encodeState({ since, upto, offset: offset + this.pageSize })}`
    } else {
      body['@odata.deltaLink'] = `${base}?token=${encodeState({ since: upto, upto: null, offset: 0 })}`
    }
    return Response.json(body)
  }

  /** Every live item, each folder before what it holds. */
  private tree(): Item[] {
    const out: Item[] = []
    const walk = (id: string) => {
      const item = this.items.get(id) as Item
      out.push(item)
      for (const child of this.items.values()) if (child.parentId === id && !child.deleted) walk(child.id)
    }
    walk('root')
    return out
  }
}

interface DeltaState {
  since: number
  upto: number | null
  offset: number
}

function encodeState(s: DeltaState): string {
  return Buffer.from(JSON.stringify(s)).toString('base64url')
}

function decodeState(token: string | null): DeltaState | null {
  if (!token) return null
  const s = JSON.parse(Buffer.from(token, 'base64url').toString()) as DeltaState
  return { ...s, upto: s.upto ?? null }
}

function error(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status })
}
