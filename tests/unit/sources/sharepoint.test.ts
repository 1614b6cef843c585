// The SharePoint connector against a loopback stand-in for Microsoft Graph and the identity platform:
// the same code path a real tenant gets, with only the two base URLs pointing at the stand-in.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import {
  type ConnectorEnv,
  type SourceChange,
  type SourceConnector,
  SourceError,
  type SourceFile,
} from '../../../src/features/sources/connectors/connector'
import { sharepointKind } from '../../../src/features/sources/connectors/sharepoint'
import { ManualClock } from '../../../src/platform/clock/clock'
import { loadConfig } from '../../../src/platform/config/config.load'
import { createLogger } from '../../../src/platform/log/log'
import { EgressGuard } from '../../../src/platform/net/egress'
import { GraphStandin } from '../../helpers/standins/graph-standin'

let graph: GraphStandin
let clock: ManualClock

function env(o: { denyPrivateNetworks?: boolean } = {}): ConnectorEnv {
  const config = loadConfig({
    env: {
      ENGRAM_SOURCES_GRAPH_API_URL: graph.url,
      ENGRAM_SOURCES_MICROSOFT_LOGIN_URL: graph.loginUrl,
      ENGRAM_SOURCES_REQUEST_TIMEOUT_SECONDS: '10',
    },
    readFile: () => null,
  }).sources
  // The stand-in listens on loopback, which the operator must allow (sources.allow_loopback).
  const guard = new EgressGuard({ denyPrivateNetworks: o.denyPrivateNetworks ?? false, allowLoopback: true })
  return {
    config,
    fetch: guard.fetch,
    checkHost: (u) => guard.check(u),
    clock,
    log: createLogger('silent'),
  }
}

function open(
  folder: string,
  o: { secret?: string; site?: boolean; denyPrivateNetworks?: boolean } = {},
): SourceConnector {
  return sharepointKind.open({
    settings: {
      tenant_id: graph.tenantId,
      client_id: graph.clientId,
      ...(o.site ? { site_id: graph.siteId } : { drive_id: graph.driveId }),
    },
    secrets: { client_secret: o.secret ?? graph.clientSecret },
    folder,
    env: env(o),
  })
}

async function collect(changes: AsyncIterable<SourceChange>): Promise<SourceChange[]> {
  const out: SourceChange[] = []
  for await (const c of changes) out.push(c)
  return out
}

function files(changes: SourceChange[]): SourceFile[] {
  return changes.flatMap((c) => (c.kind === 'file' ? [c.file] : []))
}

async function failure(p: Promise<unknown>): Promise<SourceError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  if (!(e instanceof SourceError)) throw new Error(`expected a SourceError, got ${String(e)}`)
  return e
}

beforeEach(() => {
  graph = new GraphStandin({ pageSize: 3 })
  clock = new ManualClock()
  graph.putFile('Shared/Policies/leave.txt', 'Leave policy')
  graph.putFile('Shared/Policies/travel/europe.txt', 'Travel in Europe')
  graph.putFile('Shared/Policies/travel/asia.md', '# Asia', 'text/markdown')
  graph.putFile('Shared/Other/notes.txt', 'Not in the folder')
  graph.putFile('readme.txt', 'At the root')
})

afterEach(() => graph.stop())

describe('sharepoint folder', () => {
  test('a library path is normalized without leading, trailing or doubled slashes', async () => {
    const e = env()
    expect(await sharepointKind.folder('/Shared//Policies/', e)).toBe('Shared/Policies')
    expect(await sharepointKind.folder('', e)).toBe('')
    expect(await sharepointKind.folder('/', e)).toBe('')
  })

  test('".." segments, control characters and characters SharePoint refuses are invalid_folder', async () => {
    const e = env()
    for (const raw of ['Shared/../Secret', '..', 'Shared/./x', 'a\u0000b', 'line\nbreak', 'what?', 'a:b']) {
      expect((await failure(sharepointKind.folder(raw, e))).code).toBe('invalid_folder')
    }
  })
})

describe('sharepoint validate', () => {
  test('passes with good credentials and an existing folder, by drive id or by site', async () => {
    await open('Shared/Policies').validate()
    await open('', { site: true }).validate()
    await open('shared/policies').validate()
  })

  test('a wrong client secret is bad_credentials, and the message does not carry the secret', async () => {
    const e = await failure(open('Shared/Policies', { secret: 'wrong-secret-value' }).validate())
    expect(e.code).toBe('bad_credentials')
    expect(e.message).not.toContain('wrong-secret-value')
    expect(e.message).toContain('invalid_client')
  })

  test('a missing folder, or a file where the folder should be, is folder_not_found', async () => {
    expect((await failure(open('Shared/Nope').validate())).code).toBe('folder_not_found')
    expect((await failure(open('readme.txt').validate())).code).toBe('folder_not_found')
  })

  test('a connection with neither drive_id nor site_id, or an unknown site, cannot be validated', async () => {
    const bare = sharepointKind.open({
      settings: { tenant_id: graph.tenantId, client_id: graph.clientId },
      secrets: { client_secret: graph.clientSecret },
      folder: '',
      env: env(),
    })
    expect((await failure(bare.validate())).code).toBe('bad_credentials')
    const unknownSite = sharepointKind.open({
      settings: {
        tenant_id: graph.tenantId,
        client_id: graph.clientId,
        site_id: 'contoso.sharepoint.com,9,9',
      },
      secrets: { client_secret: graph.clientSecret },
      folder: '',
      env: env(),
    })
    expect((await failure(unknownSite.validate())).code).toBe('folder_not_found')
  })

  test('403 from Graph is permission_denied', async () => {
    graph.forbidden = true
    expect((await failure(open('Shared/Policies').validate())).code).toBe('permission_denied')
  })

  test('a Graph host the guard refuses is egress_denied, before any request', async () => {
    const e = await failure(open('Shared/Policies', { denyPrivateNetworks: true }).validate())
    expect(e.code).toBe('egress_denied')
    expect(graph.requests).toEqual([])
  })

  test('a closed port is unreachable', async () => {
    const c = open('Shared/Policies')
    graph.stop()
    expect((await failure(c.validate())).code).toBe('unreachable')
  })
})

describe('sharepoint list', () => {
  test('a full listing follows delta pages and lists the folder’s files, subfolders included, relative to it', async () => {
    const listing = await open('Shared/Policies').list(null)
    expect(listing.complete).toBe(true)
    const found = files(await collect(listing.changes))
    expect(found.map((f) => f.path).sort()).toEqual(['leave.txt', 'travel/asia.md', 'travel/europe.txt'])
    const asia = found.find((f) => f.path === 'travel/asia.md') as SourceFile
    expect(asia).toMatchObject({ size: 6, contentType: 'text/markdown' })
    expect(asia.version).toStartWith('"c:{')
    expect(asia.modifiedAt).toBeNumber()
    // Ten live items (the root and five folders among them) at three a page: four delta pages.
    expect(graph.requests.filter((r) => r.includes('/root/delta')).length).toBe(4)
    expect(listing.nextCursor()).toStartWith(`${graph.url}/drives/`)
  })

  test('the library root lists every file; a site id reads the site’s default library', async () => {
    const listing = await open('/', { site: true }).list(null)
    const paths = files(await collect(listing.changes)).map((f) => f.path)
    expect(paths.sort()).toEqual([
      'Shared/Other/notes.txt',
      'Shared/Policies/leave.txt',
      'Shared/Policies/travel/asia.md',
      'Shared/Policies/travel/europe.txt',
      'readme.txt',
    ])
  })

  test('a full listing of a folder that is gone is folder_not_found', async () => {
    expect((await failure(open('Shared/Gone').list(null))).code).toBe('folder_not_found')
  })

  test('from a delta link, only additions, updates and deletions inside the folder come back', async () => {
    const c = open('Shared/Policies')
    const first = await c.list(null)
    const before = files(await collect(first.changes))
    const cursor = first.nextCursor() as string
    const leave = before.find((f) => f.path === 'leave.txt') as SourceFile

    graph.putFile('Shared/Policies/new/remote.txt', 'Remote work')
    graph.putFile('Shared/Policies/leave.txt', 'Leave policy, revised')
    graph.delete('Shared/Policies/travel/europe.txt')
    graph.putFile('Shared/Other/unrelated.txt', 'Elsewhere')

    const delta = await c.list(cursor)
    expect(delta.complete).toBe(false)
    const changes = await collect(delta.changes)
    const changed = files(changes)
    expect(changed.map((f) => f.path).sort()).toEqual(['leave.txt', 'new/remote.txt'])
    const revised = changed.find((f) => f.path === 'leave.txt') as SourceFile
    expect(revised.id).toBe(leave.id)
    expect(revised.version).not.toBe(leave.version)
    const europe = before.find((f) => f.path === 'travel/europe.txt') as SourceFile
    expect(changes).toContainEqual({ kind: 'removed', id: europe.id })
    // A file elsewhere in the library never shows up as a file of this folder.
    expect(changed.some((f) => f.path.includes('unrelated'))).toBe(false)

    const next = delta.nextCursor() as string
    expect(next).not.toBe(cursor)
    const quiet = await c.list(next)
    expect(await collect(quiet.changes)).toEqual([])
  })

  test('a file moved out of the folder is removed', async () => {
    const c = open('Shared/Policies')
    const first = await c.list(null)
    const leave = files(await collect(first.changes)).find((f) => f.path === 'leave.txt') as SourceFile
    graph.move('Shared/Policies/leave.txt', 'Shared/Other')
    const delta = await c.list(first.nextCursor())
    expect(await collect(delta.changes)).toEqual([{ kind: 'removed', id: leave.id }])
  })

  test('an expired delta link (410 resyncRequired) is cursor_expired', async () => {
    const c = open('Shared/Policies')
    const first = await c.list(null)
    await collect(first.changes)
    graph.expireDeltaLinks()
    expect((await failure(c.list(first.nextCursor()))).code).toBe('cursor_expired')
  })

  test('a delta link for another API is cursor_expired, and nothing is sent there', async () => {
    const e = await failure(
      open('Shared/Policies').list('https://elsewhere.example/v1.0/drives/x/root/delta?token=1'),
    )
    expect(e.code).toBe('cursor_expired')
  })
})

describe('sharepoint tokens and limits', () => {
  test('a token Graph says has expired is renewed once and the request retried', async () => {
    const c = open('Shared/Policies')
    await c.validate()
    expect(graph.tokensIssued).toBe(1)
    graph.expireTokens()
    const listing = await c.list(null)
    expect(files(await collect(listing.changes))).toHaveLength(3)
    expect(graph.tokensIssued).toBe(2)
  })

  test('a token is reused until our clock says it is about to expire', async () => {
    graph.tokenLifetime = 600
    const c = open('Shared/Policies')
    await c.validate()
    clock.advance(500_000)
    await c.validate()
    expect(graph.tokensIssued).toBe(1)
    clock.advance(60_000)
    await c.validate()
    expect(graph.tokensIssued).toBe(2)
  })

  test('429 with Retry-After is rate_limited with the wait; 503 is source_error with it; nothing sleeps', async () => {
    const c = open('Shared/Policies')
    graph.failNext(429, { 'retry-after': '7' })
    const limited = await failure(c.list(null))
    expect(limited.code).toBe('rate_limited')
    expect(limited.retryAfterMs).toBe(7000)
    expect(limited.transient).toBe(true)

    graph.failNext(503, { 'retry-after': new Date(clock.now().getTime() + 30_000).toUTCString() })
    const down = await failure(c.validate())
    expect(down.code).toBe('source_error')
    expect(down.retryAfterMs).toBe(30_000)
  })

  test('a 429 in the middle of a listing surfaces while iterating', async () => {
    const listing = await open('Shared/Policies').list(null)
    graph.failNext(429, { 'retry-after': '2' })
    const e = await failure(collect(listing.changes))
    expect([e.code, e.retryAfterMs]).toEqual(['rate_limited', 2000])
  })
})

describe('sharepoint read', () => {
  test('reads a file through the download redirect, without sending the Graph token there', async () => {
    const c = open('Shared/Policies')
    const listing = await c.list(null)
    const leave = files(await collect(listing.changes)).find((f) => f.path === 'leave.txt') as SourceFile
    expect(new TextDecoder().decode(await c.read(leave, 1000))).toBe('Leave policy')
    expect(graph.downloadsWithAuthorization).toBe(0)
  })

  test('a file over maxBytes is file_too_large, whether its size was listed or not', async () => {
    const c = open('Shared/Policies')
    const listing = await c.list(null)
    const europe = files(await collect(listing.changes)).find(
      (f) => f.path === 'travel/europe.txt',
    ) as SourceFile
    expect((await failure(c.read(europe, 5))).code).toBe('file_too_large')
    // A size the listing did not know (-1) is caught while streaming, past the limit.
    expect((await failure(c.read({ ...europe, size: -1 }, 5))).code).toBe('file_too_large')
    expect(new TextDecoder().decode(await c.read({ ...europe, size: -1 }, 16))).toBe('Travel in Europe')
  })

  test('a file deleted since listing is file_not_found', async () => {
    const c = open('Shared/Policies')
    const listing = await c.list(null)
    const leave = files(await collect(listing.changes)).find((f) => f.path === 'leave.txt') as SourceFile
    graph.delete('Shared/Policies/leave.txt')
    expect((await failure(c.read(leave, 1000))).code).toBe('file_not_found')
  })
})
