// A small Google Drive v3 on loopback for the gdrive connector's tests: the OAuth 2.0 token endpoint
// (JWT bearer and refresh-token grants), files.list/get/export, changes.getStartPageToken and
// changes.list, with the shapes the googleapis client reads. It keeps a change log so that the
// changes feed reports adds, edits, trashes, moves and deletions exactly as they were made.
import { createHash, createPublicKey, verify } from 'node:crypto'

export const FOLDER_MIME = 'application/vnd.google-apps.folder'

/** One file or folder held by the stand-in. */
export interface DriveItem {
  id: string
  name: string
  mimeType: string
  parents: string[]
  trashed: boolean
  version: number
  modifiedTime: string
  /** Bytes of a binary file; the export of a Google-native one. */
  content: Uint8Array<ArrayBuffer>
}

interface Failure {
  status: number
  retryAfter?: string
  reason?: string
}

const bytes = (s: string | Uint8Array): Uint8Array<ArrayBuffer> =>
  typeof s === 'string' ? new TextEncoder().encode(s) : new Uint8Array(s)
const apiError = (status: number, message: string, reason: string, headers: Record<string, string> = {}) =>
  Response.json({ error: { code: status, message, errors: [{ reason, message }] } }, { status, headers })

export class DriveStandin {
  readonly files = new Map<string, DriveItem>()
  /** The change log; a page token is 1000 plus an index into it. */
  readonly changes: { fileId: string; removed: boolean }[] = []
  /** Every request, as `METHOD /path?query`, for tests that check what the client asked. */
  readonly requests: string[] = []
  /** Largest page files.list and changes.list return, whatever the client asks for. */
  maxPageSize = 100
  /** Page tokens below this one are refused as expired. */
  oldestPageToken = 1000
  /** When true, the next token issued is refused by the API, as Google refuses one that expired early. */
  expireNextToken = false
  readonly rootId = 'rootfolder0000'
  private readonly serviceAccounts = new Map<string, string>()
  private readonly oauthClients = new Map<string, { secret: string; refreshToken: string }>()
  private readonly tokens = new Map<string, { expired: boolean }>()
  private readonly failures: Failure[] = []
  private readonly tokenFailures: Failure[] = []
  private next = 0
  private clock = Date.parse('2026-01-01T00:00:00Z')
  private server!: ReturnType<typeof Bun.serve>

  /** Starts a stand-in on a free loopback port. */
  static start(): DriveStandin {
    const s = new DriveStandin()
    s.server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => s.handle(r) })
    s.files.set(s.rootId, s.item(s.rootId, 'My Drive', FOLDER_MIME, [], ''))
    return s
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`
  }
  get tokenUrl(): string {
    return `${this.url}/token`
  }

  stop(): void {
    this.server.stop(true)
  }

  /** Accepts JWT assertions signed by the key whose public half is given, for `email`. */
  addServiceAccount(email: string, publicKeyPem: string): void {
    this.serviceAccounts.set(email, publicKeyPem)
  }

  /** Accepts the refresh-token grant for this client and token. */
  addOAuthClient(clientId: string, secret: string, refreshToken: string): void {
    this.oauthClients.set(clientId, { secret, refreshToken })
  }

  /** Makes the token endpoint's next answer this status. */
  failNextToken(status: number, o: { retryAfter?: string } = {}): void {
    this.tokenFailures.push({ status, ...o })
  }

  /** Makes the next API request (not the token endpoint) answer with this status. */
  failNext(status: number, o: { retryAfter?: string; reason?: string } = {}): void {
    this.failures.push({ status, ...o })
  }

  addFolder(name: string, parent = this.rootId): string {
    return this.add(name, FOLDER_MIME, parent, '')
  }

  addFile(name: string, parent: string, content: string | Uint8Array, mimeType = 'text/plain'): string {
    return this.add(name, mimeType, parent, content)
  }

  /** A Google Doc, Sheet, Slides, Form...: `exported` is what files.export returns for it. */
  addNative(name: string, parent: string, kind: string, exported: string | Uint8Array = ''): string {
    return this.add(name, `application/vnd.google-apps.${kind}`, parent, exported)
  }

  update(id: string, content: string | Uint8Array): void {
    this.change(id, (f) => {
      f.content = bytes(content)
    })
  }
  rename(id: string, name: string): void {
    this.change(id, (f) => {
      f.name = name
    })
  }
  move(id: string, parent: string): void {
    this.change(id, (f) => {
      f.parents = [parent]
    })
  }
  trash(id: string): void {
    this.change(id, (f) => {
      f.trashed = true
    })
  }
  /** Deletes for good: the changes feed reports it removed. */
  remove(id: string): void {
    this.files.delete(id)
    this.changes.push({ fileId: id, removed: true })
  }

  private add(name: string, mimeType: string, parent: string, content: string | Uint8Array): string {
    const id = `id${String(++this.next).padStart(10, '0')}`
    this.files.set(id, this.item(id, name, mimeType, [parent], content))
    this.changes.push({ fileId: id, removed: false })
    return id
  }

  private item(id: string, name: string, mimeType: string, parents: string[], content: string | Uint8Array) {
    return {
      id,
      name,
      mimeType,
      parents,
      trashed: false,
      version: 1,
      modifiedTime: this.tick(),
      content: bytes(content),
    }
  }

  private change(id: string, edit: (f: DriveItem) => void): void {
    const f = this.files.get(id)
    if (!f) throw new Error(`no file ${id}`)
    edit(f)
    f.version++
    f.modifiedTime = this.tick()
    this.changes.push({ fileId: id, removed: false })
  }

  private tick(): string {
    this.clock += 1000
    return new Date(this.clock).toISOString()
  }

  /** The resource shape Drive returns for a file. */
  meta(f: DriveItem): Record<string, unknown> {
    const native = f.mimeType.startsWith('application/vnd.google-apps.')
    return {
      kind: 'drive#file',
      id: f.id,
      name: f.name,
      mimeType: f.mimeType,
      parents: f.parents,
      trashed: f.trashed,
      version: String(f.version),
      modifiedTime: f.modifiedTime,
      ...(native
        ? {}
        : { size: String(f.content.length), md5Checksum: createHash('md5').update(f.content).digest('hex') }),
    }
  }

  private async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    this.requests.push(`${req.method} ${url.pathname}${url.search}`)
    const token = url.pathname === '/token' && req.method === 'POST'
    const failure = (token ? this.tokenFailures : this.failures).shift()
    if (failure) {
      const headers: Record<string, string> = failure.retryAfter ? { 'retry-after': failure.retryAfter } : {}
      return apiError(failure.status, 'Injected failure.', failure.reason ?? 'injected', headers)
    }
    if (token) return this.token(new URLSearchParams(await req.text()))
    const bearer = req.headers.get('authorization')?.replace(/^Bearer /, '') ?? ''
    const known = this.tokens.get(bearer)
    if (!known || known.expired) {
      return apiError(401, 'Request had invalid authentication credentials.', 'authError')
    }
    return this.api(url)
  }

  private token(form: URLSearchParams): Response {
    const grant = form.get('grant_type')
    if (grant === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      if (!this.jwtValid(form.get('assertion') ?? '')) {
        return Response.json(
          { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' },
          { status: 400 },
        )
      }
    } else if (grant === 'refresh_token') {
      const client = this.oauthClients.get(form.get('client_id') ?? '')
      if (!client || client.secret !== form.get('client_secret')) {
        return Response.json({ error: 'invalid_client', error_description: 'Unauthorized' }, { status: 401 })
      }
      if (client.refreshToken !== form.get('refresh_token')) {
        return Response.json({ error: 'invalid_grant', error_description: 'Bad Request' }, { status: 400 })
      }
    } else {
      return Response.json({ error: 'unsupported_grant_type' }, { status: 400 })
    }
    const accessToken = `tok-${this.tokens.size + 1}`
    this.tokens.set(accessToken, { expired: this.expireNextToken })
    this.expireNextToken = false
    return Response.json({ access_token: accessToken, expires_in: 3599, token_type: 'Bearer' })
  }

  private jwtValid(assertion: string): boolean {
    const [header, payload, signature] = assertion.split('.')
    if (!header || !payload || !signature) return false
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      iss?: string
      scope?: string
    }
    const key = this.serviceAccounts.get(claims.iss ?? '')
    if (!key || !claims.scope) return false
    const data = Buffer.from(`${header}.${payload}`)
    return verify('RSA-SHA256', data, createPublicKey(key), Buffer.from(signature, 'base64url'))
  }

  private api(url: URL): Response {
    const p = url.pathname
    const q = url.searchParams
    if (p === '/drive/v3/changes/startPageToken') {
      return Response.json({
        kind: 'drive#startPageToken',
        startPageToken: String(1000 + this.changes.length),
      })
    }
    if (p === '/drive/v3/changes') return this.changesPage(q)
    if (p === '/drive/v3/files') return this.filesPage(q)
    const m = /^\/drive\/v3\/files\/([^/]+)(\/export)?$/.exec(p)
    const id = m?.[1] === 'root' ? this.rootId : decodeURIComponent(m?.[1] ?? '')
    const f = this.files.get(id)
    if (!m || !f) return apiError(404, `File not found: ${id}.`, 'notFound')
    const native = f.mimeType.startsWith('application/vnd.google-apps.')
    if (m[2]) {
      if (!native || !q.get('mimeType'))
        return apiError(400, 'Export only supports Docs Editors files.', 'badRequest')
      return new Response(f.content, { headers: { 'content-type': q.get('mimeType') ?? '' } })
    }
    if (q.get('alt') === 'media') {
      if (native)
        return apiError(403, 'Only files with binary content can be downloaded.', 'fileNotDownloadable')
      return new Response(f.content, { headers: { 'content-type': f.mimeType } })
    }
    return Response.json(this.meta(f))
  }

  private page<T>(all: T[], q: URLSearchParams, start: number): { items: T[]; next: number | null } {
    const size = Math.min(Number(q.get('pageSize') ?? 100), this.maxPageSize)
    const end = start + size
    return { items: all.slice(start, end), next: end < all.length ? end : null }
  }

  private filesPage(q: URLSearchParams): Response {
    const query = q.get('q') ?? ''
    const parent = /'([^']+)' in parents/.exec(query)?.[1]
    const liveOnly = /trashed\s*=\s*false/.test(query)
    const all = [...this.files.values()]
      .filter(
        (f) => f.id !== this.rootId && (!parent || f.parents.includes(parent)) && !(liveOnly && f.trashed),
      )
      .sort((a, b) => a.id.localeCompare(b.id))
    const { items, next } = this.page(all, q, Number(q.get('pageToken') ?? 0))
    return Response.json({
      kind: 'drive#fileList',
      ...(next === null ? {} : { nextPageToken: String(next) }),
      files: items.map((f) => this.meta(f)),
    })
  }

  private changesPage(q: URLSearchParams): Response {
    const token = Number(q.get('pageToken'))
    if (!Number.isInteger(token) || token < this.oldestPageToken || token > 1000 + this.changes.length) {
      return apiError(400, 'Invalid Value', 'invalid')
    }
    const { items, next } = this.page(this.changes, q, token - 1000)
    return Response.json({
      kind: 'drive#changeList',
      ...(next === null
        ? { newStartPageToken: String(1000 + this.changes.length) }
        : { nextPageToken: String(1000 + next) }),
      changes: items.map((c) => {
        const f = this.files.get(c.fileId)
        return {
          kind: 'drive#change',
          changeType: 'file',
          fileId: c.fileId,
          removed: c.removed || !f,
          ...(f && !c.removed ? { file: this.meta(f) } : {}),
        }
      }),
    })
  }
}
